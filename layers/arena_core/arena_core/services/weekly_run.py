"""The weekly decision run's first and last steps (the middle is ``decide``, one per agent).

Prepare picks the agents (active cohorts within the decision horizon, optionally narrowed to some
cohorts or agents), captures the market universe once for the week and stores it, and returns the
work items. Under v1+panel it also draws the week's forecast panel from the panel listing (every
active market above the liquidity floor closing within the design's strata, not only the
universe) and registers each cohort's panel questions, with their stratum and eligibility counts,
for scoring. Every agent of the run, reruns included, sees that same universe and trades at its
prices. Finalize counts how the decisions ended (then the caller takes a snapshot and publishes
the site).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from arena_core.constants import DECISION_RUN_OFFSET, universe_key
from arena_core.domain.cohort import Agent, Cohort, decision_week, in_calendar, week_start_for
from arena_core.domain.market import Market
from arena_core.domain.market_record import Capture
from arena_core.domain.panel import Methodology, PanelQuestion
from arena_core.errors import RunRequestError
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.clock import Clock
from arena_core.ports.market_source import MarketSource
from arena_core.ports.stores import WithCohorts, WithMarkets, WithPanel
from arena_core.services.panel import PanelSettings, captured_panel
from arena_core.services.resolution import cohorts_for_decisions
from arena_core.workflow import DecideItem, DecideOutput, FailureRecord, PreparedRun


@dataclass(frozen=True)
class RunRequest:
    """What an operator (or the schedule) asks for; every field narrows the run."""

    week_start: datetime | None = None
    cohort_ids: Sequence[str] | None = None
    agent_ids: Sequence[str] | None = None
    max_concurrency: int = 0  # 0: every agent at once


class PrepareStores(WithCohorts, WithMarkets, WithPanel, Protocol):
    """The roles preparing uses: the cohorts and agents to run, the markets' captured prices,
    and (v1+panel) the panel."""


class PrepareRunService:
    def __init__(
        self,
        stores: PrepareStores,
        source: MarketSource,
        blobs: BlobStore,
        clock: Clock,
        *,
        universe_size: int = 500,
        horizon: int = 5,
        panel: PanelSettings | None = None,
    ) -> None:
        self._cohorts = stores.cohorts
        self._panel = stores.panel
        self._markets = stores.markets
        self._panel_settings = panel or PanelSettings()
        self._source = source
        self._blobs = blobs
        self._clock = clock
        self._universe_size = universe_size
        self._horizon = horizon

    def prepare(self, request: RunRequest) -> PreparedRun:
        now = self._clock.now()
        # A rerun of a past week decides as of that week.
        week = request.week_start
        run_at = rerun_time(week, now) if week is not None else now
        eligible = [c for c in self._cohorts.active_cohorts() if c.week_start <= run_at]
        cohorts = cohorts_for_decisions(eligible, self._horizon)
        if request.cohort_ids:
            cohorts = [c for c in cohorts if c.cohort_id in set(request.cohort_ids)]
        wanted = set(request.agent_ids or [])
        agents = [
            a
            for c in cohorts
            for a in self._cohorts.agents(c.cohort_id)
            if not wanted or a.agent_id in wanted
        ]
        if not agents and (week is not None or request.cohort_ids or request.agent_ids):
            # Nothing to decide: a week before any cohort, or names that match no agent.
            # Refused before the universe is captured, so no week gets today's markets.
            raise RunRequestError(_nothing_to_run(request, run_at))
        ref, count = self._universe(run_at)
        self._register_panel(cohorts, agents, run_at)
        items = tuple(
            DecideItem(agent_id=a.agent_id, run_at=run_at, universe_ref=ref) for a in agents
        )
        return PreparedRun(
            run_at=run_at,
            universe_ref=ref,
            markets=count,
            items=items,
            max_concurrency=request.max_concurrency,
        )

    def _register_panel(
        self, cohorts: Sequence[Cohort], agents: Sequence[Agent], run_at: datetime
    ) -> None:
        """Under v1+panel: draw the week's panel (once) and register each cohort's questions,
        with the agents asked, for scoring at resolution."""
        panel_cohorts = [c for c in cohorts if c.methodology_version == Methodology.V1_PANEL]
        if not panel_cohorts:
            return
        panel = captured_panel(
            self._blobs, lambda: self._panel_listing(run_at), run_at, self._panel_settings
        )
        strata = {s.name: s for s in panel.strata}
        questions = []
        for cohort in panel_cohorts:
            asked = tuple(a.agent_id for a in agents if a.cohort_id == cohort.cohort_id)
            week = decision_week(cohort.week_start, run_at)
            for market in panel.markets:
                stratum = strata.get(market.stratum or "")
                questions.append(
                    PanelQuestion(
                        cohort_id=cohort.cohort_id,
                        week=week,
                        run_at=run_at,
                        market=market,
                        agent_ids=asked,
                        requested=panel.requested,
                        eligible=panel.eligible,
                        stratum=market.stratum,
                        stratum_quota=stratum.quota if stratum else None,
                        stratum_eligible=stratum.eligible if stratum else None,
                    )
                )
        self._panel.register_questions(questions)

    def _panel_listing(self, run_at: datetime) -> list[Market]:
        """Every active market the panel may draw from: closing within the design's strata,
        above its liquidity floor (the trading universe is not the limit)."""
        design = self._panel_settings.design
        closes_by = run_at + timedelta(days=design.horizon_days)
        return self._source.panel_listing(run_at, closes_by, design.min_liquidity).ordered()

    def _universe(self, run_at: datetime) -> tuple[str, int]:
        """The week's universe: captured by the first run of the week, reused by reruns."""
        key = universe_key(week_start_for(run_at).date())
        existing = self._blobs.find(key)
        if existing is not None:
            return existing, len(json.loads(self._blobs.get(existing)))
        fetch = self._source.top_markets(self._universe_size)
        captured = fetch.ordered()
        markets = [m.model_dump(mode="json") for m in captured]
        ref = self._blobs.put(key, json.dumps(markets).encode())
        # Each market's prices at this capture: its page charts them across the weeks.
        self._markets.record_captures([Capture.of(m, run_at) for m in captured])
        return ref, len(markets)


def _nothing_to_run(request: RunRequest, run_at: datetime) -> str:
    asked = f"the week of {week_start_for(run_at).date()}"
    if request.cohort_ids or request.agent_ids:
        asked += " with the cohorts and agents named"
    return f"no active cohort has an agent to decide for {asked}"


def rerun_time(week_start: datetime, now: datetime) -> datetime:
    """When a rerun of the week starting ``week_start`` decides: its decision run's time. The
    week must be a Sunday (a week start) within the calendar, and have started: a run in the
    future would trade now at a date that has not come."""
    in_calendar(week_start, "week")
    if week_start_for(week_start) != week_start:
        sunday = week_start_for(week_start).date()
        raise RunRequestError(
            f"{week_start.date()} is not a Sunday; weeks start on Sunday (the week of {sunday}?)"
        )
    run_at = week_start + DECISION_RUN_OFFSET
    if run_at > now:
        raise RunRequestError(f"the week of {week_start.date()} has not started its run yet")
    return run_at


def decision_counts(results: Sequence[DecideOutput | FailureRecord]) -> dict[str, int]:
    """How the run's decisions ended, by status; reruns that found them final apart."""
    counts: dict[str, int] = {}
    for result in results:
        already = isinstance(result, DecideOutput) and result.already_decided
        key = "already_decided" if already else result.status.value
        counts[key] = counts.get(key, 0) + 1
    return counts
