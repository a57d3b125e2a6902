"""The markets a publication reads again (``publication/growing.py``): their records, captures and
every position on them, and where their pages are drawn, their hourly marks over their whole
life and every trade and panel forecast on them, whichever cohort made it (a sealed cohort's read
from its records).

A market's page and row are a function of the market alone, not of which cohorts are live: the
site a tick leaves is the one a fresh publication writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from arena_core.dataset.records import CohortView
from arena_core.domain.cohort import Cohort
from arena_core.domain.market_record import MarketRecord
from arena_core.publication.captured import captured_market
from arena_core.site.charts import Point
from arena_core.site.markets import (
    Holder,
    MarketStores,
    MarketView,
    add_records,
    holders,
    unknown_holder,
)


def market_views(
    stores: MarketStores,
    ids: Sequence[str],
    cohorts: Iterable[Cohort],
    views: Sequence[CohortView],
    *,
    asked: frozenset[str] = frozenset(),
    marks_until: datetime | None = None,
) -> list[MarketView]:
    """A view of each market of ``ids``, with its positions (every cohort's) and captures;
    its trades and forecasts from ``views`` (the cohorts that touched it); with
    ``marks_until`` (its page is drawn), its hourly marks since the first of those cohorts
    opened.
    ``asked``: the markets a sealed cohort's panel asked about."""
    names = holders(cohorts)
    records = stores.markets.market_records(list(ids))
    for cohort in views:  # a panel's market not stored yet: as the panel captured it
        for question in cohort.questions:
            asked_id = question.market.market_id
            if asked_id in ids and asked_id not in records:
                records[asked_id] = MarketRecord(market=captured_market(question.market))
    found = {i: MarketView(r) for i, r in records.items()}
    for market_id, view in found.items():
        view.captures = stores.markets.captures(market_id)
        positions = stores.ledger.positions_on(market_id)
        view.positions = [
            (p, names.get(p.agent_id) or unknown_holder(p.agent_id))
            for p in sorted(positions, key=lambda p: (p.cohort_id, p.agent_id, p.side))
        ]
        view.asked = market_id in asked
    if marks_until is not None:
        _add_marks(stores, found, views, marks_until)
    for cohort in views:
        add_records(found, cohort, names)
    return [found[i] for i in sorted(found)]


def _add_marks(
    stores: MarketStores,
    found: Mapping[str, MarketView],
    views: Sequence[CohortView],
    until: datetime,
) -> None:
    """Each market's hourly marks since the first cohort that touched it opened (or its first
    capture, if earlier): one query for them all."""
    first: dict[str, datetime] = {}
    for view in views:
        for market_id in view.markets:
            if market_id in found:
                opened = view.cohort.created_at
                first[market_id] = min(first.get(market_id, opened), opened)
    for market_id, market in found.items():
        for capture in market.captures:
            first[market_id] = min(first.get(market_id, capture.at), capture.at)
    if not first:
        return
    for sheet in stores.markets.marks(min(first.values()), until):
        for market_id, price in sheet.prices.items():
            start = first.get(market_id)
            if start is not None and sheet.hour >= start:
                found[market_id].marks.append(Point(sheet.hour, price))


def touching(index: Mapping[str, Sequence[str]], ids: Iterable[str]) -> list[str]:
    """The sealed cohorts that touched any of ``ids`` (``index``: market -> cohorts)."""
    return sorted({cohort for market_id in ids for cohort in index.get(market_id, ())})


__all__ = ["Holder", "market_views", "touching"]
