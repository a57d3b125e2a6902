"""The site of a deployment that switched from v1 to v1+panel: one leaderboard per version, the
current (v1+panel) first and ranked on the panel; the model pages show each version apart with
the family's coherence; the pairwise page compares the panel forecasts; the panel tables are
exported and documented, and the v1+panel leaderboard recomputes from the exports."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.agents.baselines import BASELINE_AGENTS
from arena_core.analysis.figures import Rules
from arena_core.dataset.exports import TABLES
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.lineup import AgentKind, default_lineup
from arena_core.domain.market import Market, ResolutionKind
from arena_core.domain.panel import Methodology
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.clock import FixedClock
from arena_core.ports.llm import ChatMessage, LLMResponse
from arena_core.ports.stores import Stores
from arena_core.services.decide import DecideRequest, DecideService, DecideSettings
from arena_core.services.panel import PanelSettings
from arena_core.services.publish_site import PublishSiteService
from arena_core.services.resolution import ResolutionService
from arena_core.services.snapshot import SnapshotService
from arena_core.services.weekly_run import PrepareRunService, RunRequest
from arena_local.memory import InMemoryBlobStore, memory_stores
from tests.support.builders import WEEK0, binary, resolved
from tests.support.html_tables import table
from tests.support.markets import StaticMarketSource
from tests.support.panel_exports import read_csv, recompute_panel_leaderboard

PANEL = PanelSettings(size=6)
RULES = Rules(min_forecasts=4, min_cohorts=2, min_weeks=2, min_events=2)
MODELS = [s.family_id for s in default_lineup() if s.kind is AgentKind.LLM]


def week_markets(week: int, run_at: datetime) -> list[Market]:
    return [
        binary(f"w{week}m{i}", str(Decimal("0.30") + Decimal("0.1") * i)).model_copy(
            update={"end_date": run_at + timedelta(days=3), "category": f"cat-{i % 2}"}
        )
        for i in range(10)
    ]


def winner(market_id: str) -> str:
    return "Yes" if int(market_id[-1]) % 2 else "No"


class StatingModel(ForecastAgent):
    """States p_yes near the truth (family k: closer with larger k) and buys its best edge."""

    def __init__(self, skill: int) -> None:
        self.skill = skill

    def respond(self, messages: Sequence[ChatMessage], context: AgentContext) -> LLMResponse:
        forecasts, best = [], None
        for m in context.panel.markets if context.panel else ():
            truth = Decimal(1) if winner(m.market_id) == "Yes" else Decimal(0)
            p = (m.p_yes * (7 - self.skill) + truth * self.skill) / 7
            forecasts.append({"market_id": m.market_id, "p_yes": str(p.quantize(Decimal("0.01")))})
            if best is None or abs(p - m.p_yes) > abs(best[1] - best[2]):
                best = (m.market_id, p, m.p_yes)
        reply: dict[str, object] = {"action": "HOLD", "reasoning": "r", "forecasts": forecasts}
        if best is not None:
            side = "YES" if best[1] > best[2] else "NO"
            bet = [{"market_id": best[0], "side": side, "amount": 100 + 50 * self.skill}]
            reply |= {"action": "BET", "bets": bet}
        text = json.dumps(reply)
        return LLMResponse(content=text, model="test/m", provider="t", raw_body=text)


def responder(member: Agent) -> ForecastAgent:
    if member.kind is AgentKind.BASELINE:
        return BASELINE_AGENTS[member.model_id]()
    return StatingModel(MODELS.index(member.family_id))


def panel_weeks(
    last_resolved_after: timedelta = timedelta(days=4),
) -> tuple[Stores, InMemoryBlobStore, FixedClock, StaticMarketSource]:
    """One v1 week, then two v1+panel weeks (the v1 cohort keeps deciding as v1), each week's
    markets resolved 4 days after its run (the last week's ``last_resolved_after``): the
    stores, blobs, clock and market source."""
    stores, blobs = memory_stores(), InMemoryBlobStore()
    clock = FixedClock(WEEK0)
    source = StaticMarketSource([])
    for week in range(3):
        start = WEEK0 + timedelta(weeks=week)
        version = Methodology.V1 if week == 0 else Methodology.V1_PANEL
        cohort = Cohort.open(start, default_lineup(), version)
        stores.cohorts.create_cohort(cohort, cohort.agents())
        run_at = start + timedelta(minutes=5)
        clock.set(run_at)
        for market in week_markets(week, run_at):
            source.set(market)
        run = PrepareRunService(stores, source, blobs, clock, panel=PANEL).prepare(RunRequest())
        decide = DecideService(stores, blobs, clock, DecideSettings(panel=PANEL))
        for item in run.items:
            request = DecideRequest(item.agent_id, item.run_at, item.universe_ref, "o")
            decide.decide(request, responder)
        SnapshotService(stores, source, clock).run()
        for market in week_markets(week, run_at):
            source.set(resolved(market, ResolutionKind.WINNER, winner(market.market_id)))
        clock.set(run_at + (last_resolved_after if week == 2 else timedelta(days=4)))
        ResolutionService(stores, source, clock).run(clock.now())
        SnapshotService(stores, source, clock).run()
    return stores, blobs, clock, source


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One v1 week, then two v1+panel weeks (``panel_weeks``), published."""
    stores, blobs, clock, _ = panel_weeks()
    out = tmp_path_factory.mktemp("panel-site")
    PublishSiteService(stores, LocalFolderPublisher(out), blobs, clock, RULES).run()
    return out


def test_one_leaderboard_per_version_the_current_first(site: Path) -> None:
    page = (site / "index.html").read_text()
    assert page.index('id="panel-leaderboard"') < page.index('id="leaderboard"')
    panel = table(page, "panel-leaderboard")
    ranked = [row for row in panel.rows if row[0].split()[0].isdigit()]
    assert len(ranked) == len(MODELS)
    names = [row[1] for row in panel.rows]
    assert any(n.startswith("Ensemble of the models") for n in names)
    assert any(n.startswith("Market price at capture") for n in names)
    board = read_csv(site / "data" / "leaderboard.csv")
    assert {r["methodology"] for r in board} == {"v1"}
    panel_board = read_csv(site / "data" / "panel_leaderboard.csv")
    assert {r["methodology"] for r in panel_board} == {"v1+panel"}
    v1_cohorts = {
        r["cohort_id"]
        for r in read_csv(site / "data/family_returns.csv")
        if r["methodology"] == "v1"
    }
    assert v1_cohorts == {"c2026-03-01"}  # never aggregated across versions


def test_the_panel_leaderboard_recomputes_from_the_exports(site: Path) -> None:
    board = recompute_panel_leaderboard(site / "data")
    best = MODELS[-1]  # the most skilled stating model
    assert board.shown.families[best].rank == 1
    assert board.shown.families[MODELS[0]].rank == len(MODELS)
    assert {p.measure for p in board.shown.pairs} == {"peer_score"}  # pairs on the ranked measure
    assert {p.measure for p in board.shown.brier_pairs} == {"brier"}  # Brier beside it


def test_panel_tables_are_written_and_documented(site: Path) -> None:
    page = (site / "data" / "index.html").read_text()
    cohorts = json.loads((site / "data" / "cohorts.json").read_text())
    panel_cohort = next(c for c in cohorts if c["methodology"] == "v1+panel")
    assert any(f.endswith("panel_forecasts.csv") for f in panel_cohort["files"])
    for name in ("panel_leaderboard", "panel_scores", "coherence"):
        header = (site / "data" / f"{name}.csv").read_text().splitlines()[0].split(",")
        assert header == [c for c, _ in TABLES[name][1]]
        assert all(f"<code>{column}</code>" in page for column in header)
    folder = site / "data" / "cohorts" / panel_cohort["cohort_id"]
    for name in ("panel_questions", "panel_forecasts"):
        header = (folder / f"{name}.csv").read_text().splitlines()[0].split(",")
        assert header == [c for c, _ in TABLES[name][1]]
    questions = read_csv(folder / "panel_questions.csv")
    assert {q["requested"] for q in questions} == {str(PANEL.size)} and {
        q["status"] for q in questions
    } == {"scored"}


def test_model_pages_show_each_version_and_the_coherence(site: Path) -> None:
    page = (site / "models" / f"{MODELS[-1]}.html").read_text()
    assert page.index("Methodology v1+panel") < page.index("Methodology v1 ")
    assert "Buys that follow its forecasts" in page
    coherence = read_csv(site / "data" / "coherence.csv")
    mine = [c for c in coherence if c["family_id"] == MODELS[-1]]
    assert mine and all(c["coherent"] == "true" for c in mine)
    assert f"{len(mine)} / {len(mine)} (100.0%)" in page


def test_pairwise_and_methodology_pages_cover_the_panel(site: Path) -> None:
    pairwise = (site / "pairwise.html").read_text()
    assert "Methodology v1+panel" in pairwise and "Mean peer score, on panel questions" in pairwise
    assert 'id="pairs-table"' in pairwise and 'id="pairs-table-2"' in pairwise
    methodology = (site / "methodology.html").read_text()
    assert 'id="panel"' in methodology and "peer score" in methodology
    assert "What changes from v1" in methodology


def test_every_panel_market_has_its_page_and_its_row_in_markets(site: Path) -> None:
    """Issue 28 §4: before, 45 of 58 panel markets of the v1+panel demo had neither (only what
    an agent traded was recorded)."""
    asked = {
        row["market_id"]
        for path in (site / "data" / "cohorts").glob("*/panel_questions.csv")
        for row in read_csv(path)
    }
    traded = {row["market_id"] for row in read_csv(site / "data" / "forecasts.csv")}
    assert asked - traded, "the case needs panel markets no agent traded"
    rows = {row["market_id"]: row for row in read_csv(site / "data" / "markets.csv")}
    assert asked <= set(rows)
    for market_id in asked:
        assert (site / "markets" / f"{market_id}.html").is_file(), market_id
        assert rows[market_id]["asked_by_panel"] == "true", rows[market_id]
