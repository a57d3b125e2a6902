"""What a publication computes from what it read: the leaderboards, the home feed and each
family's recent decisions, what the families cost, the markets table and the markets whose
pages are drawn, and the universes of the weeks not published yet."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from arena_core.dataset.costs import cost_rows
from arena_core.dataset.records import CohortView, DecisionView
from arena_core.dataset.universes import new_universes, run_weeks, universe_path
from arena_core.domain.cohort import Agent
from arena_core.publication.carried import FeedEntry
from arena_core.publication.markets import market_views, touching
from arena_core.publication.plan import Plan
from arena_core.publication.reads import Reads
from arena_core.publication.slots import SPEND
from arena_core.site.board_pages import recent_decisions
from arena_core.site.charts import RangeChart
from arena_core.site.costs import Spend, family_costs
from arena_core.site.feed import FEED_LENGTH, FeedItem
from arena_core.site.markets import MarketView, market_row
from arena_core.site.views import LeaderboardData

Row = dict[str, Any]


@dataclass
class Computed:
    views: list[CohortView]  # the live cohorts' records (site-wide scopes)
    boards: list[LeaderboardData]
    returns: list[RangeChart]
    feed: list[FeedItem]
    spend: Spend
    costs: list[Row] = field(default_factory=list)  # site-wide scopes
    markets: list[MarketView] = field(default_factory=list)  # those whose pages are drawn
    universes: dict[date, list[Row]] = field(default_factory=dict)  # not published yet
    weeks: list[date] = field(default_factory=list)  # every week with a universe published


def compute(plan: Plan, reads: Reads) -> Computed:
    scope = plan.scope
    views = [
        reads.reader.cohort_view(c, charts=scope.cohort_pages) for c in reads.live
    ] if scope.site_wide else []  # fmt: skip
    boards = reads.boards.leaderboards(reads.cohorts)
    decisions = _decisions(reads, views) if scope.site_wide else None
    if decisions is not None:
        for board in boards:
            recent_decisions(board.families, [(a.family_id, d) for a, d in decisions])
    computed = Computed(
        views,
        boards,
        reads.boards.return_charts(boards),
        _feed(reads, decisions),
        {},
    )
    if scope.site_wide:
        computed.costs = _costs(reads, views)
        computed.markets = _markets(reads, views, every_page=scope.cohort_pages)
        weeks = run_weeks(reads.cohorts, reads.now)
        computed.universes = new_universes(reads.blobs, weeks, _published(reads))
        computed.weeks = [w for w in weeks if w in computed.universes or _published(reads)(w)]
    computed.spend = _spend(reads, boards, computed.costs if scope.site_wide else None)
    return computed


def _published(reads: Reads) -> Callable[[date], bool]:
    return lambda week: reads.known(f"{universe_path(week)}.csv") is not None


def _decisions(reads: Reads, views: list[CohortView]) -> list[tuple[Agent, DecisionView]]:
    """Every live cohort's decisions and the sealed cohorts' latest."""
    live = [(a.agent, d) for view in views for a in view.agents for d in a.decisions]
    kept = [
        (e.agent, DecisionView(e.record, e.record.outcome, e.reasoning))
        for e in reads.sealed.decisions()
    ]
    return live + kept


def _feed(reads: Reads, decisions: list[tuple[Agent, DecisionView]] | None) -> list[FeedItem]:
    """The home page's latest decisions: from the decisions read, else as carried (they change
    with a decision run, whose publication reads them)."""
    carried = reads.state.carried
    if decisions is None and carried.feed is None:  # never read yet: read them now
        views = [reads.reader.cohort_view(c, charts=False) for c in reads.live]
        decisions = _decisions(reads, views)
    if decisions is None:
        return [FeedItem(e.agent, DecisionView(e.record, e.record.outcome, e.reasoning))
                for e in carried.feed or []]  # fmt: skip
    ordered = sorted(decisions, key=lambda i: (i[1].record.updated_at, i[1].record.decision_id))
    feed = [FeedItem(agent, decision) for agent, decision in ordered[::-1][:FEED_LENGTH]]
    carried.feed = [
        FeedEntry(agent=i.agent, record=i.decision.record, reasoning=i.decision.reasoning)
        for i in feed
    ]
    return feed


def _costs(reads: Reads, views: list[CohortView]) -> list[Row]:
    """The costs table: the sealed cohorts' rows and the live cohorts' (from their decisions)."""
    rows = [*reads.sealed.costs(), *cost_rows(views)]
    return sorted(rows, key=lambda r: (r["family_id"], r["cohort_id"], r["week"]))


def _spend(reads: Reads, boards: list[LeaderboardData], costs: list[Row] | None) -> Spend:
    """Each family's costs over each leaderboard's cohorts: computed where the costs table is
    (a site-wide publication), else as it kept them (decisions change with a decision run,
    whose publication is site-wide)."""
    key = [
        [
            b.methodology,
            sorted(c.cohort_id for c in b.cohorts),
            sorted(f.spec.family_id for f in b.families),
        ]
        for b in boards
    ]
    if costs is not None:
        spend = family_costs(boards, costs)
        reads.memo.put(SPEND, "board/spend", key, spend)
        return spend

    def compute() -> Spend:
        views = [reads.reader.cohort_view(c, charts=False) for c in reads.live]
        return family_costs(boards, _costs(reads, views))

    return reads.memo.get(SPEND, "board/spend", key, compute)


def _markets(reads: Reads, views: list[CohortView], *, every_page: bool) -> list[MarketView]:
    """The markets read again (``publication/growing.py``), their rows merged into the table,
    and the markets whose pages are drawn, with every trade and forecast on them (a sealed
    cohort's read from its records) and their marks: every one read again with
    ``every_page`` (daily), else those whose rows changed (a market resolved, a position
    settled: its page shows it within the hour)."""
    touched = {market_id for view in views for market_id in view.markets}
    due = reads.markets.due(touched, reads.sealed.markets())
    if every_page:
        found = _views(reads, views, due, pages=True)
        _merge(reads, found, touched)
        return found
    moved = _merge(reads, _views(reads, views, due, pages=False), touched)
    return _views(reads, views, sorted(moved), pages=True) if moved else []


def _views(
    reads: Reads, views: list[CohortView], ids: list[str], *, pages: bool
) -> list[MarketView]:
    """The markets of ``ids``; where their pages are drawn, with their marks and the records
    of the sealed cohorts that touched them."""
    extra: list[CohortView] = []
    if pages:
        index = reads.sealed.markets()
        sealed = set(touching(index, ids))
        extra = [
            reads.reader.cohort_view(c, charts=False)
            for c in reads.cohorts
            if c.cohort_id in sealed
        ]
    return market_views(
        reads.stores,
        ids,
        reads.cohorts,
        [*views, *extra],
        asked=reads.sealed.asked(),
        marks_until=reads.now if pages else None,
    )


def _merge(reads: Reads, found: list[MarketView], touched: set[str]) -> set[str]:
    final = {
        m.market.market_id
        for m in found
        if m.record.resolved_at is not None and m.market.market_id not in touched
    }
    return reads.markets.merge([market_row(m) for m in found], final)
