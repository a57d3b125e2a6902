"""The public dataset: every table as CSV and JSON, and the schema describing every column.

Columns are declared once here; the CSV/JSON writers and the schema page both read them, so the
documentation cannot drift from the files. Money and probabilities are written as exact decimal
strings, times as ISO 8601 UTC.

Text comes from models (reasoning) and from Polymarket (questions, outcome names), so it is
hostile: in CSV, a text cell that a spreadsheet would run as a formula is prefixed with an
apostrophe (OWASP's advice on CSV injection), while numbers stay numbers; the JSON keeps the
text as it was. Neither ever holds a lone UTF-16 surrogate, so an export can always be encoded.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from arena_core.domain.text import clean_text
from arena_core.site.schema import TABLES

__all__ = ["TABLES", "cell", "table_files"]

Row = Mapping[str, Any]

# A spreadsheet reads a cell starting with one of these as a formula (tab and carriage return
# because it trims them first, exposing what follows).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
FORMULA_GUARD = "'"  # spreadsheets take a leading apostrophe as "text": shown as is, never run


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
    if _is_text(value) and text.startswith(FORMULA_TRIGGERS):
        return FORMULA_GUARD + text
    return text


def columns(table: str) -> list[str]:
    return [name for name, _ in TABLES[table][1]]


def project(table: str, rows: Iterable[Row]) -> list[dict[str, Any]]:
    """The table's columns of each row, JSON-safe (``cell``)."""
    names = columns(table)
    return [{c: cell(row.get(c)) for c in names} for row in rows]


def to_csv(table: str, rows: Sequence[Row]) -> bytes:
    names = columns(table)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    writer.writerows([csv_cell(row.get(c)) for c in names] for row in rows)
    return buffer.getvalue().encode()


def to_json(table: str, rows: Sequence[Row]) -> bytes:
    return json.dumps(project(table, rows), indent=1, ensure_ascii=False).encode()


def table_files(prefix: str, table: str, rows: Sequence[Row]) -> dict[str, bytes]:
    return {
        f"{prefix}/{table}.csv": to_csv(table, rows),
        f"{prefix}/{table}.json": to_json(table, rows),
    }
