"""Replies with panel forecasts (v1+panel): parsing, validation through the format retries, and
the fill-ins once the retries are spent."""

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from arena_core.domain.answer import Action
from arena_core.domain.panel import Panel, PanelMarket
from arena_core.ports.agent import AgentContext
from arena_core.protocol import parse_answer
from arena_core.protocol.prompt import Prompt, build_prompt
from arena_core.services.consult import consult
from arena_local.memory import InMemoryBlobStore
from tests.support.agents import ScriptedAgent

RUN = datetime(2026, 2, 1, 12, tzinfo=UTC)
PANEL = Panel(
    week_start=datetime(2026, 2, 1, tzinfo=UTC),
    run_at=RUN,
    requested=3,
    eligible=3,
    markets=tuple(
        PanelMarket(
            market_id=f"m{i}",
            question=f"Will {i} happen?",
            category="Politics",
            end_date=RUN + timedelta(days=9),
            p_yes=Decimal(price),
        )
        for i, price in enumerate(("0.30", "0.55", "0.80"))
    ),
)


def reply(forecasts: Any, action: str = "HOLD") -> str:
    return json.dumps({"action": action, "reasoning": "r", "forecasts": forecasts})


def every(p: Any = 0.5) -> list[dict[str, Any]]:
    return [{"market_id": f"m{i}", "p_yes": p} for i in range(3)]


def ask(*script: str, retries: int = 2) -> Any:
    agent = ScriptedAgent(*script)
    context = AgentContext("c.a", 1, RUN, Decimal(10000), [], [], PANEL)
    result = consult(
        agent,
        Prompt("s", "u"),
        context,
        blobs=InMemoryBlobStore(),
        blob_prefix="d",
        format_retries=retries,
        panel=PANEL,
    )
    return result, agent


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.62, "0.62"), ("62%", "0.62"), ("0.7", "0.7"), (0, "0"), (1, "1"), ("  45 % ", "0.45")],
)
def test_probabilities_read_as_numbers_or_percent_strings(value: Any, expected: str) -> None:
    answer = parse_answer(reply([{"market_id": "m0", "p_yes": value}]))
    assert answer.forecasts[0].p_yes == Decimal(expected)
    assert answer.forecast_errors == ()


def test_unreadable_entries_are_reported_without_spoiling_the_answer() -> None:
    answer = parse_answer(
        reply(
            [
                {"market_id": "m0", "p_yes": "likely"},
                "m1",
                {"p_yes": 0.4},
                {"MARKET_ID": "m2", "P_YES": 0.4},
            ]
        )
    )
    assert answer.action is Action.HOLD
    assert [f.market_id for f in answer.forecasts] == ["m2"]
    assert len(answer.forecast_errors) == 3
    assert "forecasts[0].p_yes must be a number" in answer.forecast_errors[0]
    assert parse_answer(reply("all 50%")).forecast_errors == (
        "'forecasts' must be a list of objects",
    )


def test_a_complete_reply_is_taken_at_once() -> None:
    result, agent = ask(reply(every("40%"), "HOLD"))
    assert agent.calls == 1 and not result.fallback
    assert [f.p_yes for f in result.forecasts] == [Decimal("0.4")] * 3
    assert result.forecast_problems is None
    assert not any(f.missing or f.clipped for f in result.forecasts)


def test_missing_forecasts_are_fed_back_and_a_corrected_reply_is_taken() -> None:
    result, agent = ask(reply(every()[:2]), reply(every(0.9)))
    assert agent.calls == 2
    feedback = agent.conversations[1][-1].content
    assert "no forecast for 'm2'" in feedback and "forecasts" in feedback
    assert result.responses[0].error is not None and result.responses[1].error is None
    assert [f.p_yes for f in result.forecasts] == [Decimal("0.9")] * 3


def test_after_the_retries_the_last_usable_answer_stands_with_flagged_fill_ins() -> None:
    bets = [{"market_id": "m0", "side": "YES", "amount": 100}]
    duplicated = [
        *every(0.2)[:1],
        {"market_id": "m0", "p_yes": 0.9},
        {"market_id": "x", "p_yes": 1},
    ]
    last = json.dumps(
        {
            "action": "BET",
            "bets": bets,
            "reasoning": "r",
            "forecasts": [*duplicated, {"market_id": "m1", "p_yes": 7}],
        }
    )
    result, agent = ask(reply(every()[:1]), "not json at all", last)
    assert agent.calls == 3 and not result.fallback
    assert result.answer.action is Action.BET
    by_id = {f.market_id: f for f in result.forecasts}
    assert by_id["m0"].p_yes == Decimal("0.2") and not by_id["m0"].missing
    assert by_id["m1"].missing and by_id["m1"].p_yes == Decimal("0.55")  # 7 is out of range
    assert by_id["m2"].missing and by_id["m2"].p_yes == Decimal("0.80")
    assert result.forecast_problems is not None
    assert "more than once" in result.forecast_problems
    assert "'x' is not a panel market" in result.forecast_problems


def test_certainty_is_clipped_as_metaculus_does() -> None:
    result, _ = ask(
        reply(
            [
                {"market_id": "m0", "p_yes": 0},
                {"market_id": "m1", "p_yes": 1},
                {"market_id": "m2", "p_yes": "50%"},
            ]
        )
    )
    assert [(f.p_yes, f.clipped) for f in result.forecasts] == [
        (Decimal("0.001"), True),
        (Decimal("0.999"), True),
        (Decimal("0.5"), False),
    ]


def test_the_hold_fallback_fills_in_every_forecast() -> None:
    result, agent = ask("nope", "still nope", retries=1)
    assert agent.calls == 2 and result.fallback
    assert all(f.missing for f in result.forecasts)
    assert [f.p_yes for f in result.forecasts] == [m.p_yes for m in PANEL.markets]


def test_without_a_panel_forecasts_are_not_recorded() -> None:
    agent = ScriptedAgent(reply(every()))
    context = AgentContext("c.a", 1, RUN, Decimal(10000), [], [])
    result = consult(
        agent,
        Prompt("s", "u"),
        context,
        blobs=InMemoryBlobStore(),
        blob_prefix="d",
        format_retries=2,
    )
    assert result.answer.forecasts == () and result.forecasts == ()


def test_the_prompt_lists_the_panel_only_under_v1_panel() -> None:
    common: dict[str, Any] = {
        "now": RUN,
        "cohort_id": "c2026-02-01",
        "week": 1,
        "cash": Decimal(10000),
        "positions": [],
        "markets": [],
    }
    plain = build_prompt(**common)
    panel = build_prompt(**common, panel=PANEL)
    assert "FORECAST PANEL" not in plain.user and "forecasts" not in plain.system
    assert "FORECAST PANEL (3 markets" in panel.user
    assert "m1|Will 1 happen?|Politics|2026-02-10|0.55" in panel.user
    assert '"forecasts": [{"market_id": "<id>", "p_yes": 0.62}' in panel.system
    assert panel.system.startswith(plain.system)
