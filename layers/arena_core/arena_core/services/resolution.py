"""Settle what Polymarket has resolved and complete finished cohorts (hourly).

Markets that hold or held a position are fetched in batches; those resolved upstream (closed and UMA
``resolved``) are settled position by position, every buy on them scored, then they are marked
resolved. Proposed, disputed and closed-without-status markets wait. Under v1+panel, the panel
questions' markets are fetched in the same requests and resolved questions scored. A cohort is
complete once it has had its first decision run and none of its agents holds an open position (a
cohort whose agents all held completes too); its agents' final snapshots are written first, so the
site and the dataset show each agent as it ended, never as it stood before its last settlements.
Reruns and crashes part-way are safe: every step is idempotent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.market import MarketStatus
from arena_core.domain.market_record import new_observations
from arena_core.domain.portfolio import family_totals
from arena_core.errors import MarketRefreshError
from arena_core.ports.clock import Clock
from arena_core.ports.market_source import MarketSource
from arena_core.ports.stores import (
    WithCohorts,
    WithDecisions,
    WithLedger,
    WithMarkets,
    WithPanel,
    WithViews,
)
from arena_core.services.panel_scoring import PanelScoringReport, PanelScoringService
from arena_core.services.settlement import MarketSettlement, settle_market
from arena_core.services.snapshot import changed_markets, refreshed_nothing, snapshot_of


@dataclass(frozen=True)
class ResolutionReport:
    checked: int
    settled: tuple[MarketSettlement, ...]
    failed_market_ids: tuple[str, ...]
    completed_cohorts: tuple[str, ...]
    requests: int
    panel: PanelScoringReport = field(default_factory=PanelScoringReport)


def cohorts_for_decisions(active: list[Cohort], horizon: int = 5) -> list[Cohort]:
    """The most recent ``horizon`` active cohorts take decisions; older ones only settle."""
    return sorted(active, key=lambda c: c.week_start)[-horizon:] if horizon > 0 else []


class ResolutionStores(
    WithCohorts, WithDecisions, WithLedger, WithMarkets, WithPanel, WithViews, Protocol
):
    """The roles resolution uses: cohorts to complete, the ledger to settle, market states,
    the views a completed cohort's final snapshots go to, and (v1+panel) the panel's
    questions with the decisions holding their forecasts."""


class ResolutionService:
    def __init__(self, stores: ResolutionStores, source: MarketSource, clock: Clock) -> None:
        self._stores = stores
        self._cohorts = stores.cohorts
        self._ledger = stores.ledger
        self._markets = stores.markets
        self._source = source
        self._clock = clock

    def run(self, at: datetime | None = None) -> ResolutionReport:
        moment = at or self._clock.now()
        market_ids = self._markets.markets_to_resolve()
        panel = PanelScoringService(self._stores)
        held = set(market_ids)
        # Panel questions' markets are fetched in the same requests; only held ones are settled.
        fetch = self._source.markets_by_id(sorted(held | set(panel.pending_market_ids())))
        if refreshed_nothing(market_ids, fetch):
            raise MarketRefreshError(
                f"no market refreshed: {len(fetch.failed_ids)} markets failed "
                f"({fetch.requests} requests); nothing was settled"
            )
        fetched = [m for m in fetch.markets.values() if m.market_id in held]
        # Panel markets nobody holds are kept too (their state, resolution and provenance):
        # every market a panel asked about has its page and its row in the markets table.
        asked = [m for m in fetch.markets.values() if m.market_id not in held]
        unresolved = [m for m in fetched if m.status is not MarketStatus.RESOLVED]
        seen = [*fetched, *asked]
        stored = self._markets.get_markets([m.market_id for m in seen]) if seen else {}
        # Every change of state the arena sees (closed, proposed, disputed, resolved) is kept:
        # the dataset publishes it as the resolution's provenance.
        self._markets.record_observations(new_observations(seen, stored, moment))
        self._markets.save_markets(changed_markets([*unresolved, *asked], stored))
        settled = tuple(
            settle_market(self._stores, market, moment)
            for market in fetched
            if market.status is MarketStatus.RESOLVED
        )
        panel_report = panel.score(fetch.markets, moment)
        completed = tuple(
            c.cohort_id for c in self._cohorts.active_cohorts() if self._complete_if_done(c, moment)
        )
        return ResolutionReport(
            checked=len(market_ids),
            settled=settled,
            failed_market_ids=tuple(fetch.failed_ids),
            completed_cohorts=completed,
            requests=fetch.requests,
            panel=panel_report,
        )

    def _complete_if_done(self, cohort: Cohort, moment: datetime) -> bool:
        if cohort.first_decision_at is None:
            return False
        agent_ids = [Agent.id_for(cohort.cohort_id, spec.family_id) for spec in cohort.lineup]
        holdings = self._ledger.holdings_of(agent_ids)
        if any(p.is_open for h in holdings.values() for p in h.positions):
            return False
        finals = [snapshot_of(h.agent, [], h.scores, {}, moment)[0] for h in holdings.values()]
        # Before completing: a rerun writes them again. The final snapshot is the last of its
        # hour (the cohort is never snapshotted again) and its agents' latest for good.
        self._stores.views.put_snapshots(finals)
        self._stores.views.put_hourly(finals)
        self._stores.views.put_finals(finals)
        self._stores.views.put_final_totals(family_totals(cohort.cohort_id, finals))
        return self._cohorts.complete_cohort(cohort.cohort_id, moment)
