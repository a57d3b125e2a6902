"""End to end under methodology v1+panel: one simulated week of the demo, clean and with
faults, with two stand-ins and the baselines.

The two ledgers (panel scores included) and the two exported datasets must be identical; every
agent must have a forecast or a flagged fill-in for every panel market of its decision; the
stand-ins must answer the panel themselves; and the v1+panel leaderboard must recompute from
the exports alone.
"""

from __future__ import annotations

import io
import json
from collections import defaultdict
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from arena_core.domain.panel import P_MAX, P_MIN, Methodology
from arena_local.demo.main import DemoOutcome, DemoRequest, run_demo
from tests.support.panel_exports import read_csv, recompute_panel_leaderboard
from tests.support.reachable import published, reachable

STAND_INS = ("standin-gpt-5.1", "standin-qwen-3-next")
COHORT = "c2026-11-01"
K = 30


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[DemoOutcome, Path, str]:
    out = tmp_path_factory.mktemp("panel") / "site"
    request = DemoRequest(
        weeks=1,
        seed=7,
        out=out,
        agents=("baselines", *STAND_INS),
        faults=True,
        offline=True,
        start=date(2026, 11, 1),
        methodology=Methodology.V1_PANEL,
        pass_minutes=60,  # faults and the panel, not marking: a sixth of the passes (suite time)
        panel_size=K,  # the largest K allowed is tested on DynamoDB Local (suite time)
    )
    printed = io.StringIO()
    return run_demo(request, printed), out, printed.getvalue()


def test_faults_leave_ledger_and_exports_identical(demo: tuple[DemoOutcome, Path, str]) -> None:
    outcome, out, printed = demo
    assert outcome.faulty is not None and outcome.injector is not None
    assert outcome.faulty.ledger == outcome.clean.ledger
    assert outcome.clean.ledger["panel_scores"]  # the panel is part of what is compared
    assert outcome.injector.retries >= 2 and outcome.injector.concurrent_runs == 1
    assert "Exported dataset with faults is identical to the clean run" in printed
    cohorts = json.loads((out / "data" / "cohorts.json").read_text())
    assert [c["methodology"] for c in cohorts] == ["v1+panel"]


def test_every_agent_forecasts_every_panel_market(demo: tuple[DemoOutcome, Path, str]) -> None:
    _, out, _ = demo
    folder = out / "data" / "cohorts" / COHORT
    questions = read_csv(folder / "panel_questions.csv")
    decisions = read_csv(folder / "decisions.csv")
    forecasts = read_csv(folder / "panel_forecasts.csv")
    assert len(questions) == K and len(decisions) == len(STAND_INS) + 3
    panel = {q["market_id"] for q in questions}
    # Drawn from the listing by the design: its strata, their quotas and what qualified
    strata = {(q["stratum"], q["stratum_quota"], q["stratum_eligible"]) for q in questions}
    assert {s for s, _, _ in strata} <= {"1 to 3 days", "4 to 7 days"}
    assert all(int(quota) == K // 2 and int(eligible) > 0 for _, quota, eligible in strata)
    assert {(q["requested"], q["eligible"]) for q in questions} == {
        (str(K), questions[0]["eligible"])
    }
    assert int(questions[0]["eligible"]) >= K
    by_decision: dict[str, list[dict[str, str]]] = defaultdict(list)
    for f in forecasts:
        by_decision[f["decision_id"]].append(f)
    for decision in decisions:
        mine = by_decision[decision["decision_id"]]
        assert sorted(f["market_id"] for f in mine) == sorted(panel)
        for f in mine:
            assert (f["stated"] == "") == (f["missing"] == "true")
            assert P_MIN <= Decimal(f["p_yes"]) <= P_MAX
    stated = [f for f in forecasts if f["agent_id"].endswith(STAND_INS) and f["missing"] == "false"]
    assert len(stated) >= len(panel)  # the stand-ins state the panel themselves


def test_the_panel_leaderboard_recomputes_from_the_exports(
    demo: tuple[DemoOutcome, Path, str],
) -> None:
    _, out, printed = demo
    board = recompute_panel_leaderboard(out / "data")
    follower = board.shown.families["baseline-market-follower"]
    assert follower.skill is not None and follower.skill.estimate == pytest.approx(0.0)
    assert {"ensemble", "market"} <= set(board.shown.families)
    assert "Leaderboard (methodology v1+panel: ranked on the forecast panel)" in printed
    assert f"Panel: K = {K}, from every market of the listing that qualifies" in printed
    page = (out / "index.html").read_text()
    assert 'id="panel-leaderboard"' in page and 'id="leaderboard"' not in page


def test_every_file_of_the_panel_site_is_reached_from_its_home_page(
    demo: tuple[DemoOutcome, Path, str],
) -> None:
    _, out, _ = demo
    assert published(out) - reachable(out) == set()
