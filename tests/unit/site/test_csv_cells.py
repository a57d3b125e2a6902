"""Issue 26 §2: CSV cells a spreadsheet or a parser cannot be tricked by.

Before: a bare carriage return inside a cell was written unquoted (``csv.writer`` with
``lineterminator="\\n"``), so a reasoning ``fine so far\\r=2+5+cmd|' /C calc'!A0`` split its
``decisions.csv`` row in spreadsheets and pandas, and started a new row with an unguarded
formula; a display name ``\\r=1+1`` did the same to ``agents.csv`` and ``leaderboard.csv``.
Formulas after leading blanks or written with fullwidth signs went unguarded; ``replies.csv``
held a raw body twice when it was the message itself; a cell could exceed what common readers
accept (Python's ``csv`` refuses fields over 131,072 characters)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from arena_core.dataset.exports import to_csv, to_json

READER_LIMIT = 131_072  # Python's csv.field_size_limit() by default

SPLITTER = "fine so far\r=2+5+cmd|' /C calc'!A0"


def parsed(data: bytes) -> list[list[str]]:
    """The rows as Python's csv module reads them (its default field size limit)."""
    return list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))


def decision(reasoning: str) -> dict[str, Any]:
    return {"decision_id": "c1.a.w001", "reasoning": reasoning, "week": 1, "action": "HOLD"}


@pytest.mark.parametrize(
    "text", [SPLITTER, "a\rb", "a\r\nb", "a\nb", "\r", "x\r", "\r=1+1", "a\u2028b"]
)
def test_a_line_break_in_a_cell_never_ends_its_row(text: str) -> None:
    data = to_csv("decisions", [decision(text), decision("second")])
    header, first, second = parsed(data)
    reasoning = header.index("reasoning")
    assert first[reasoning].removeprefix("'") == text
    assert second[reasoning] == "second"
    assert len(first) == len(second) == len(header)


def test_the_splitter_of_the_issue_starts_no_row_and_no_formula() -> None:
    rows = parsed(to_csv("decisions", [decision(SPLITTER)]))
    assert len(rows) == 2
    assert not any(cell.startswith("=") for row in rows for cell in row)


@pytest.mark.parametrize("table", ["agents", "leaderboard"])
def test_a_display_name_cannot_split_a_row_either(table: str) -> None:
    rows = parsed(to_csv(table, [{"display_name": "\r=1+1", "family_id": "f"}]))
    assert len(rows) == 2
    name = rows[0].index("display_name")
    assert rows[1][name] == "'\r=1+1"


@pytest.mark.parametrize(
    "text",
    [" =1+1", "  +1", "\t=1", "\n=1", "\u00a0=1", "\u3000=1", "＝1+1", "＋1", "－1", "＠SUM(A1)"],
)
def test_formulas_after_blanks_or_in_fullwidth_signs_are_guarded(text: str) -> None:
    (_, row) = parsed(to_csv("decisions", [decision(text)]))
    header = parsed(to_csv("decisions", []))[0]
    assert row[header.index("reasoning")] == "'" + text
    (exported,) = json.loads(to_json("decisions", [decision(text)]))
    assert exported["reasoning"] == text  # the JSON keeps the text as it was


def test_no_cell_is_longer_than_common_readers_accept() -> None:
    body = "{" + "x" * 300_000 + "}"
    data = to_csv("replies", [{"decision_id": "c1.a.w001", "raw_body": body}])
    header, row = parsed(data)  # would raise "field larger than field limit (131072)"
    cell = row[header.index("raw_body")]
    assert len(cell) < READER_LIMIT
    assert cell.endswith("… [cut: 300002 characters; the JSON file holds them all]")
    (exported,) = json.loads(to_json("replies", [{"decision_id": "c1.a.w001", "raw_body": body}]))
    assert exported["raw_body"] == body
