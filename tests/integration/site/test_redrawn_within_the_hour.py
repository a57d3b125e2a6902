"""What a settlement, a resolution or a weekly run changes is on the site within the hour: the
resolved market's page and the settled bet's decision page in the next hourly publication, and
every question of a new panel with its page and its row in the markets table at once (issue 36:
up to a day of pages showing a settled bet open, and half a panel without pages)."""

from __future__ import annotations

import html
from datetime import timedelta
from pathlib import Path

from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.domain.cohort import Cohort
from arena_core.domain.decisions import DecisionRecord
from arena_core.domain.lineup import default_lineup
from arena_core.domain.market import MarketStatus, ResolutionKind
from arena_core.domain.panel import Methodology
from arena_core.ports.clock import FixedClock
from arena_core.services.decide import DecideRequest, DecideService, DecideSettings
from arena_core.services.publish_site import DAILY, FULL, WEEKLY, PublishSiteService, Scope
from arena_core.services.resolution import ResolutionService
from arena_core.services.snapshot import SnapshotService
from arena_core.services.weekly_run import PrepareRunService, RunRequest
from arena_local.memory import InMemoryBlobStore, memory_stores
from tests.integration.site.test_panel_site import PANEL, responder, week_markets
from tests.support.builders import WEEK0, resolved
from tests.support.markets import StaticMarketSource
from tests.support.panel_exports import read_csv
from tests.support.scenario import HOSTILE_FAMILY, Scenario, build


def _publish(scenario: Scenario, site: Path, scope: Scope) -> None:
    publisher = LocalFolderPublisher(site)
    PublishSiteService(scenario.stores, publisher, scenario.blobs, scenario.clock).run(scope)


class _CountedBlobs(InMemoryBlobStore):
    """The scenario's blobs, each read recorded."""

    def __init__(self, inner: InMemoryBlobStore) -> None:
        super().__init__()
        self._inner = inner
        self.read: list[str] = []

    def get(self, ref: str) -> bytes:
        self.read.append(ref)
        return self._inner.get(ref)


def _refs(record: DecisionRecord) -> set[str]:
    """The blobs a decision's page is drawn from: its prompt, replies and reasoning."""
    outcome = record.outcome
    assert outcome is not None
    refs = {outcome.prompt_ref, outcome.reasoning_ref, *(a.response_ref for a in outcome.responses)}
    return {ref for ref in refs if ref is not None}


def _pages(site: Path, folder: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (site / folder).glob("*.html")}


def test_a_settlement_is_on_its_market_and_decision_pages_in_the_next_hourly_publication(
    tmp_path: Path,
) -> None:
    scenario = build(tmp_path / "unused", weeks=1, extra=6)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    held = scenario.stores.ledger.positions_on("m9")
    assert held and all(p.is_open for p in held)  # the hostile family's open bet
    before = (site / "markets/m9.html").read_text()

    scenario.clock.set(scenario.clock.now() + timedelta(minutes=10))
    market = scenario.source.markets["m9"]
    scenario.source.set(resolved(market, ResolutionKind.WINNER, market.sides[1]))
    ResolutionService(scenario.stores, scenario.source, scenario.clock).run()
    SnapshotService(scenario.stores, scenario.source, scenario.clock).run()
    assert not any(p.is_open for p in scenario.stores.ledger.positions_on("m9"))
    drawn = _pages(site, "decisions")
    blobs = _CountedBlobs(scenario.blobs)
    PublishSiteService(scenario.stores, LocalFolderPublisher(site), blobs, scenario.clock).run(FULL)
    redrawn = {name for name, body in _pages(site, "decisions").items() if drawn[name] != body}
    # only the decisions whose pages are drawn again are read in full, not their cohort's
    records = [
        r for a in scenario.stores.cohorts.agents(scenario.stores.cohorts.cohorts()[0].cohort_id)
        for r in scenario.stores.decisions.decisions(a.agent_id)
    ]  # fmt: skip
    again = [r for r in records if f"{r.decision_id}.html" in redrawn]
    assert again and len(again) < len(records)
    assert blobs.read and set(blobs.read) <= set().union(*(_refs(r) for r in again))

    fresh = tmp_path / "fresh"
    _publish(scenario, fresh, DAILY)  # what the next daily publication would draw
    after = (site / "markets/m9.html").read_text()
    assert after != before and after == (fresh / "markets/m9.html").read_text()
    assert f"{market.sides[1]} won" in after and "not resolved" in before
    ours, theirs = _pages(site, "decisions"), _pages(fresh, "decisions")
    assert ours.keys() == theirs.keys()
    assert [name for name in ours if ours[name] != theirs[name]] == []
    hostile = [
        a.agent_id
        for a in scenario.stores.cohorts.agents(scenario.stores.cohorts.cohorts()[0].cohort_id)
        if a.family_id == HOSTILE_FAMILY
    ]
    (record,) = scenario.stores.decisions.decisions(hostile[0])
    page = html.unescape((site / f"decisions/{record.decision_id}.html").read_text())
    assert "settled" in page.lower()


def _panel_run(site: Path) -> tuple[Scenario, str]:
    """A v1+panel week's run and its first snapshot pass, before any resolution pass."""
    stores, blobs = memory_stores(), InMemoryBlobStore()
    clock = FixedClock(WEEK0)
    source = StaticMarketSource([])
    cohort = Cohort.open(WEEK0, default_lineup(), Methodology.V1_PANEL)
    stores.cohorts.create_cohort(cohort, cohort.agents())
    run_at = WEEK0 + timedelta(minutes=5)
    clock.set(run_at)
    for market in week_markets(0, run_at):
        source.set(market)
    run = PrepareRunService(stores, source, blobs, clock, panel=PANEL).prepare(RunRequest())
    decide = DecideService(stores, blobs, clock, DecideSettings(panel=PANEL))
    for item in run.items:
        decide.decide(DecideRequest(item.agent_id, item.run_at, item.universe_ref, "o"), responder)
    SnapshotService(stores, source, clock).run()
    return Scenario(stores, blobs, clock, source, site), cohort.cohort_id


def test_every_question_of_a_new_panel_has_its_page_and_row_right_after_the_run(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    scenario, cohort_id = _panel_run(site)
    asked = {q.market.market_id: q.market for q in scenario.stores.panel.questions(cohort_id)}
    stored = scenario.stores.markets.get_markets(sorted(asked))
    assert len(asked) == PANEL.size and set(stored) < set(asked)  # some not stored yet
    _publish(scenario, site, WEEKLY)

    rows = {row["market_id"]: row for row in read_csv(site / "data/markets.csv")}
    for market_id, market in asked.items():
        page = html.unescape((site / f"markets/{market_id}.html").read_text())
        assert market.question in page
        assert rows[market_id]["question"] == market.question
    decisions = [html.unescape(p.read_text()) for p in (site / "decisions").glob("*.html")]
    with_forecasts = [d for d in decisions if "<h2>Panel forecasts</h2>" in d]
    assert with_forecasts
    for page in with_forecasts:  # questions by their words, linked to their pages
        assert all(m.question in page for m in asked.values())
        assert all(f'href="../markets/{market_id}.html"' in page for market_id in asked)

    # the first resolution pass stores them: their pages and rows are the arena's own within
    # the hour, what a fresh publication draws
    scenario.clock.set(scenario.clock.now() + timedelta(minutes=60))
    ResolutionService(scenario.stores, scenario.source, scenario.clock).run()
    assert set(scenario.stores.markets.get_markets(sorted(asked))) == set(asked)
    _publish(scenario, site, FULL)
    fresh = tmp_path / "fresh"
    _publish(scenario, fresh, DAILY)
    for market_id in asked:
        path = f"markets/{market_id}.html"
        assert (site / path).read_bytes() == (fresh / path).read_bytes(), path
    assert (site / "data/markets.csv").read_bytes() == (fresh / "data/markets.csv").read_bytes()
    assert all(
        m.status is MarketStatus.OPEN
        for m in scenario.stores.markets.get_markets(sorted(asked)).values()
    )
