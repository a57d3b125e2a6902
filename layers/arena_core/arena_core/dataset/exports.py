"""The public dataset: every table as CSV and JSON, and the schema describing every column.

Columns are declared once here; the CSV/JSON writers and the schema page both read them, so the
documentation cannot drift from the files. Every number of a column is written with the same
decimal places (``site.fields``: cents for dollars, micro-units for prices and shares, twelve
places for forecasts and bet scores, six for computed statistics), money and probabilities as
decimal strings; times as ISO 8601 UTC.

Text comes from models (reasoning) and from Polymarket (questions, outcome names), so it is
hostile: in CSV, a text cell that a spreadsheet would run as a formula (after any leading
blanks, fullwidth ``＝ ＋ － ＠`` included) is prefixed with an apostrophe (OWASP's advice on CSV
injection), while numbers stay numbers; every cell holding a carriage return or a line feed is
quoted, so no cell can end its row and start another; and no cell is longer than
``CSV_CELL_CHARS`` (common readers refuse more: Python's ``csv`` stops at 131,072): a longer
one is cut, marked, and whole in the JSON. The JSON keeps the text as it was. Neither ever
holds a lone UTF-16 surrogate, so an export can always be encoded.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal, getcontext, localcontext
from enum import Enum
from typing import Any

from arena_core.dataset.fields import field
from arena_core.dataset.schema import TABLES
from arena_core.domain.text import clean_text

__all__ = ["TABLES", "cell", "table_files"]

Row = Mapping[str, Any]

# A spreadsheet reads a cell starting with one of these as a formula, once it has trimmed the
# blanks before it (spaces, tabs, line breaks; some also read the fullwidth forms as their
# ASCII twins).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20")
BLANKS = " \t\r\n\u00a0\u3000"
FORMULA_GUARD = "'"  # spreadsheets take a leading apostrophe as "text": shown as is, never run
CSV_CELL_CHARS = 100_000  # a cell's characters at most, in CSV (the JSON keeps them all)
_QUOTED = (",", '"', "\r", "\n")


def cell(value: Any) -> Any:
    """A JSON-safe value: Decimals as exact strings, times in ISO 8601, enums as values, text
    with any lone surrogate replaced by U+FFFD."""
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, Enum):
        return cell(value.value)
    if isinstance(value, str):
        return clean_text(value)
    return value


def _is_text(value: Any) -> bool:
    """Whether ``value`` is text (a number is not, though a negative one starts with -)."""
    return isinstance(value, str) or (isinstance(value, Enum) and isinstance(value.value, str))


def csv_cell(value: Any) -> str:
    """One CSV field: empty for None, booleans in lowercase, otherwise ``cell``'s text; text
    that would start a formula gets a leading apostrophe. The decision is made on the value's
    type, before ``cell`` turns a Decimal such as -12.50 into a string."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    text = str(cell(value))
    if not _is_text(value):
        return text
    if len(text) > CSV_CELL_CHARS:
        cut = f"… [cut: {len(text)} characters; the JSON file holds them all]"
        text = text[: CSV_CELL_CHARS - len(cut)] + cut
    if text.lstrip(BLANKS).startswith(FORMULA_TRIGGERS) or text[:1] in ("\t", "\r"):
        return FORMULA_GUARD + text
    return text


def csv_line(fields: Sequence[str]) -> str:
    """One CSV row (RFC 4180 quoting, ``\n`` between rows): a field is quoted when it holds a
    comma, a quote, a carriage return or a line feed (Python's writer, given ``\n`` to end
    rows, leaves a bare carriage return unquoted, and readers end the row there)."""
    return (
        ",".join(
            '"' + f.replace('"', '""') + '"' if any(c in f for c in _QUOTED) else f for f in fields
        )
        + "\n"
    )


def columns(table: str) -> list[str]:
    return [name for name, _ in TABLES[table][1]]


def fixed(value: Any, places: int | None) -> Any:
    """A number at the column's decimal places (half-even); anything else as it is."""
    if places is None or isinstance(value, bool):
        return value
    if isinstance(value, float):
        value = Decimal(repr(value))
    if isinstance(value, Decimal) and value.is_finite():
        quantum = _quantum(places)
        if value.adjusted() + places + 2 <= getcontext().prec:  # the context has room
            rounded = value.quantize(quantum, rounding=ROUND_HALF_EVEN)
        else:  # room for every digit: 28 raised on 1e30 at 2 places
            with localcontext() as context:
                context.prec = value.adjusted() + places + 2
                rounded = value.quantize(quantum, rounding=ROUND_HALF_EVEN)
        return abs(rounded) if rounded == 0 else rounded  # never "-0.00"
    return value


@functools.cache
def _quantum(places: int) -> Decimal:
    return Decimal(1).scaleb(-places)


def _formatted(table: str, rows: Iterable[Row]) -> Iterator[list[Any]]:
    fields = [field(table, name) for name in columns(table)]
    for row in rows:
        yield [fixed(row.get(f.name), f.places) for f in fields]


def project(table: str, rows: Iterable[Row]) -> list[dict[str, Any]]:
    """The table's columns of each row, JSON-safe (``cell``): computed statistics as JSON
    numbers, money and probabilities as exact decimal strings."""
    found = list(rows)
    return [
        _projected(table, row, values)
        for row, values in zip(found, _formatted(table, found), strict=True)
    ]


def _projected(table: str, row: Row, values: Sequence[Any]) -> dict[str, Any]:
    return {
        name: float(value) if isinstance(row.get(name), float) else cell(value)
        for name, value in zip(columns(table), values, strict=True)
    }


def to_csv(table: str, rows: Sequence[Row]) -> bytes:
    lines = [csv_line(columns(table))]
    lines += [csv_line([csv_cell(v) for v in values]) for values in _formatted(table, rows)]
    return "".join(lines).encode()


def to_json(table: str, rows: Sequence[Row]) -> bytes:
    return _json(project(table, rows))


def _json(projected: list[dict[str, Any]]) -> bytes:
    return _array([_item(row) for row in projected]).encode()


def _item(row: Mapping[str, Any]) -> str:
    """One row of a table's JSON: compact, on one line (JSON escapes every line break in a
    string), so the array reads and diffs a row per line."""
    return json.dumps(row, ensure_ascii=False)


def _array(items: Sequence[str]) -> str:
    return "[\n" + ",\n".join(items) + "\n]" if items else "[]"


def bodies(table: str, rows: Sequence[Row]) -> tuple[bytes, bytes]:
    """The table's CSV and JSON (``to_csv``, ``to_json``), each row's values formatted once
    for both."""
    return assembled(table, row_pieces(table, rows))


Piece = tuple[str, str]  # one row's CSV line and its item of the JSON array


def row_pieces(table: str, rows: Sequence[Row]) -> list[Piece]:
    """Each row's CSV line and JSON item, as ``bodies`` writes them: a table's files can be
    assembled from rows formatted at different times (a completed cohort's, kept)."""
    pieces = []
    for row, values in zip(rows, _formatted(table, rows), strict=True):
        item = _item(_projected(table, row, values))
        pieces.append((csv_line([csv_cell(v) for v in values]), item))
    return pieces


def assembled(table: str, pieces: Sequence[Piece]) -> tuple[bytes, bytes]:
    """The table's CSV and JSON of its rows' pieces, in order."""
    csv = csv_line(columns(table)) + "".join(line for line, _ in pieces)
    return csv.encode(), _array([item for _, item in pieces]).encode()


def table_files(
    prefix: str, table: str, rows: Sequence[Row], name: str | None = None
) -> dict[str, bytes]:
    """The table as CSV and JSON under ``prefix``, named after it (or ``name``)."""
    stem = name or table
    return {
        f"{prefix}/{stem}.csv": to_csv(table, rows),
        f"{prefix}/{stem}.json": to_json(table, rows),
    }
