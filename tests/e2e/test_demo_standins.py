"""End to end: one simulated week of the demo with its default lineup, the seven stand-ins and
the three baselines, on the recorded markets.

The stand-ins are served on loopback by the demo itself and reached through the real OpenRouter
client, the real prompt and parser; they must be frozen into the cohort as stand-ins, decide
through that path, get bets scored within the week, and show everywhere as simulated, never
under a real model's family id or name.
"""

from __future__ import annotations

import csv
import io
import json
import threading
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from arena_core.domain.lineup import LINEUP_V1
from arena_local.demo.main import DemoOutcome, DemoRequest, run_demo
from arena_local.demo.runner import RunOptions

COHORT = "c2026-03-01"
STAND_INS = {f"standin-{family.id}" for family in LINEUP_V1}
BASELINES = {"baseline-market-follower", "baseline-always-hold", "baseline-random"}


def rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[DemoOutcome, Path, str]:
    out = tmp_path_factory.mktemp("standins") / "site"
    request = DemoRequest(  # the lineup, not marking: a sixth of the passes (suite time)
        weeks=1, seed=7, out=out, offline=True, start=date(2026, 3, 1), pass_minutes=60
    )
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:  # no real models: the stand-ins run
        patch.delenv("OPENROUTER_API_KEY", raising=False)
        outcome = run_demo(request, printed)
    return outcome, out, printed.getvalue()


def test_the_cohort_freezes_the_stand_ins_beside_the_baselines(
    demo: tuple[DemoOutcome, Path, str],
) -> None:
    outcome, out, _ = demo
    assert outcome.clean.tally.snapshots == 7 * 24  # every 60 minutes, as asked
    agents = rows(out / "data" / "cohorts" / COHORT / "agents.csv")
    assert {a["family_id"] for a in agents} == STAND_INS | BASELINES
    for agent in (a for a in agents if a["family_id"] in STAND_INS):
        assert agent["display_name"].endswith("stand-in (simulated)")
        assert agent["model_id"] == agent["family_id"].replace("standin-", "standin/", 1)
        assert agent["kind"] == "llm"


def test_stand_ins_decide_through_the_real_client_and_get_bets_scored(
    demo: tuple[DemoOutcome, Path, str],
) -> None:
    outcome, out, _ = demo
    folder = out / "data" / "cohorts" / COHORT
    decisions = [
        d for d in rows(folder / "decisions.csv") if d["agent_id"].split(".", 1)[1] in STAND_INS
    ]
    assert len(decisions) == len(STAND_INS)
    for decision in decisions:
        assert decision["status"] == "succeeded"
        assert decision["provider"] == "stand-in"  # the body the server sent, read by the client
        assert decision["model"].startswith("standin/")
        assert int(decision["replies"]) >= 1
    assert sum(d["action"] == "BET" for d in decisions) >= 5
    scored = {s["family_id"] for s in rows(folder / "bet_scores.csv")}
    assert len(scored & STAND_INS) >= 5  # most stand-ins already have scored bets in week 1
    assert outcome.clean.tally.executions == 1
    assert not [t for t in threading.enumerate() if t.name == "standin-server"]  # stopped


def test_the_leaderboard_and_printout_mark_them_as_simulated(
    demo: tuple[DemoOutcome, Path, str],
) -> None:
    _, out, printed = demo
    leaderboard = json.loads((out / "data" / "leaderboard.json").read_text())
    by_family = {r["family_id"]: r for r in leaderboard}
    assert not {family.id for family in LINEUP_V1} & set(by_family)  # no real family's row
    for family in STAND_INS:
        assert by_family[family]["stand_in"] is True
        assert "stand-in (simulated)" in by_family[family]["display_name"]
    assert not any(by_family[family]["stand_in"] for family in BASELINES)
    board = printed.split("\nLeaderboard\n", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    marked = [line for line in board if line.endswith("stand-in")]
    assert len(marked) == len(STAND_INS)
    assert all("(simulated)" in line for line in marked)
    assert "simulated, not the real models" in printed


@pytest.mark.parametrize("minutes", [0, 5, 15, 45, 120])
def test_a_pass_cadence_that_would_not_close_every_hour_is_refused(minutes: int) -> None:
    with pytest.raises(ValueError, match="10, 20, 30 or 60"):
        RunOptions(
            weeks=1,
            seed=7,
            start=datetime(2026, 3, 1, tzinfo=UTC),
            site_dir=Path("site"),
            lineup=(),
            pass_minutes=minutes,
        )
