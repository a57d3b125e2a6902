"""End to end: one simulated week of the demo, clean and with faults, on the recorded markets.

The two ledgers must be identical, every injected fault must have happened, and the exported
dataset must obey the methodology: one decision per agent-week, bets within the limits, cash
reconciling exactly with trades and settlements, and Brier recomputed from the trades.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from arena_core.adapters.site_publishers import ROOT, state_folder
from arena_core.domain.rules import MAX_BET_FRACTION, MIN_BET, STARTING_BALANCE
from arena_core.ports.publisher import INTERNAL
from arena_core.scoring.bets import SCORE_PLACES
from arena_local.demo.faults import CRASH_POINTS
from arena_local.demo.ledger import canonical
from arena_local.demo.main import LEDGER_FILE, DemoOutcome, DemoRequest, run_demo
from tests.support.reachable import published, reachable


def rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


# A third of the deployed passes (suite time); bench/bench_demo_faults.py runs moto's week at
# the deployed cadence (every 10 minutes) with the same checks.
PASS_MINUTES = {"moto": 30, "dynamodb-local": 30}


@pytest.fixture(scope="module", params=list(PASS_MINUTES))
def demo(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> tuple[DemoOutcome, Path, str]:
    """The fault week on moto's DynamoDB and on DynamoDB Local (AWS's own engine, requests
    running with true concurrency), with ``--agents baselines``: the three baselines alone
    (the stand-ins' run is in ``test_demo_standins``). The passes run every 30 minutes (a
    third of them: suite time); the deployed cadence's week is bench/bench_demo_faults.py."""
    out = tmp_path_factory.mktemp("demo") / "site"
    start = date(2026, 3, 1)
    endpoint = None
    if request.param == "dynamodb-local":
        endpoint = request.getfixturevalue("dynamodb_local").endpoint_url
    options = DemoRequest(
        weeks=1,
        seed=7,
        out=out,
        agents=("baselines",),
        faults=True,
        offline=True,
        start=start,
        dynamodb_endpoint=endpoint,
        pass_minutes=PASS_MINUTES[request.param],
    )
    printed = io.StringIO()
    outcome = run_demo(options, printed)
    return outcome, out, printed.getvalue()


def test_faults_leave_the_ledger_identical(demo: tuple[DemoOutcome, Path, str]) -> None:
    outcome, out, printed = demo
    assert outcome.faulty is not None
    assert outcome.injector is not None
    assert canonical(outcome.faulty.ledger) == canonical(outcome.clean.ledger)
    assert sorted(outcome.injector.fired) == sorted(p.name for p in CRASH_POINTS)
    assert outcome.injector.retries >= 2  # the scheduled crashes were retried
    assert outcome.injector.concurrent_runs == 1
    assert "Ledger with faults is identical to the clean run" in printed
    assert json.loads((state_folder(out) / LEDGER_FILE).read_text()) == outcome.clean.ledger


def test_the_week_ran_as_scheduled(
    demo: tuple[DemoOutcome, Path, str], request: pytest.FixtureRequest
) -> None:
    outcome, out, printed = demo
    tally = outcome.clean.tally
    minutes = PASS_MINUTES[request.node.callspec.params["demo"]]
    assert (tally.snapshots, tally.executions) == (7 * 24 * 60 // minutes, 1)  # 336 at 30
    assert "recorded dump" in printed
    assert (out / "index.html").is_file()
    leaderboard = json.loads((out / "data" / "leaderboard.json").read_text())
    agents = [r for r in leaderboard if r["kind"] != "market"]  # the market is a reference row
    assert not any(r["stand_in"] for r in leaderboard)
    assert {r["family_id"] for r in agents} == {
        "baseline-market-follower",
        "baseline-always-hold",
        "baseline-random",
    }
    ledger = outcome.clean.ledger
    assert ledger["trades"]
    assert ledger["settlements"]


def test_exports_obey_the_methodology(demo: tuple[DemoOutcome, Path, str]) -> None:
    _, out, _ = demo
    folder = out / "data" / "cohorts" / "c2026-03-01"
    decisions, trades = rows(folder / "decisions.csv"), rows(folder / "trades.csv")
    agents, settlements = rows(folder / "agents.csv"), rows(folder / "settlements.csv")
    scores = rows(folder / "bet_scores.csv")
    weeks = [(d["agent_id"], d["week"]) for d in decisions]
    assert len(weeks) == len(set(weeks)) == len(agents)

    for trade in (t for t in trades if t["kind"] == "buy"):
        amount, before = Decimal(trade["amount"]), Decimal(trade["cash_before"])
        assert MIN_BET <= amount <= before * MAX_BET_FRACTION

    for agent in agents:
        mine = agent["agent_id"]
        cash = STARTING_BALANCE
        for t in (t for t in trades if t["agent_id"] == mine):
            cash += -Decimal(t["amount"]) if t["kind"] == "buy" else Decimal(t["amount"])
        cash += sum((Decimal(s["payout"]) for s in settlements if s["agent_id"] == mine), 0)
        assert cash == Decimal(agent["cash"])

    buys = {t["trade_id"]: t for t in trades}
    briers: dict[str, list[Decimal]] = defaultdict(list)
    assert scores
    for score in scores:
        buy = buys[score["trade_id"]]
        forecast = Decimal(buy["amount"]) / (Decimal(buy["cash_before"]) * MAX_BET_FRACTION)
        won = Decimal(1) if score["won"] == "true" else Decimal(0)
        assert Decimal(score["brier"]) == ((forecast - won) ** 2).quantize(SCORE_PLACES)
        briers[score["family_id"]].append(((forecast - won) ** 2).quantize(SCORE_PLACES))
    for row in rows(out / "data" / "leaderboard.csv"):
        family = briers.get(row["family_id"])
        if family:
            mean = sum(family, Decimal(0)) / len(family)  # exported to six places
            assert float(row["brier"]) == round(float(mean), 6)


def test_the_site_folder_holds_only_what_readers_are_meant_to_read(
    demo: tuple[DemoOutcome, Path, str],
) -> None:
    """Issue 28 §5: every file of the published folder is reached from the home page (links,
    the dataset's listings, each CSV's JSON twin); the ledger, the status and the publisher's
    manifest are beside it, in ``site.state``."""
    _, out, printed = demo
    assert published(out) - reachable(out) == set()
    state = state_folder(out)
    assert {p.name for p in state.iterdir()} >= {LEDGER_FILE, "status.json"}
    assert (state / ROOT.removeprefix(INTERNAL)).is_file()  # the publication's root
    assert f"ledger and status: {state.resolve()}" in printed
