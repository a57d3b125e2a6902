"""Each week's captured universe as a table of the dataset: written once, the first time a
publication finds the week's capture not yet published (one read of the audit object)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from typing import Any

from arena_core.constants import universe_key
from arena_core.domain.cohort import WEEK, Cohort
from arena_core.domain.market import Market
from arena_core.errors import ArenaError
from arena_core.ports.blob_store import BlobStore

Row = dict[str, Any]


def universe_path(week: date) -> str:
    return f"data/universes/{week.isoformat()}"


def run_weeks(cohorts: Iterable[Cohort], now: datetime) -> list[date]:
    """Every week a decision run has captured a universe for, as far as the cohorts tell."""
    weeks: set[date] = set()
    for cohort in cohorts:
        start = cohort.week_start
        end = cohort.completed_at or now
        while start <= end:
            weeks.add(start.date())
            start += WEEK
    return sorted(weeks)


def universe_rows(markets: Iterable[Market]) -> list[Row]:
    rows = []
    for rank, market in enumerate(markets, 1):
        prices = [o.price for o in market.outcomes]
        rows.append(
            {
                "rank": rank,
                "market_id": market.market_id,
                "event_id": market.event_id,
                "question": market.question,
                "category": market.category,
                "outcomes": " | ".join(o.name for o in market.outcomes),
                "prices": " | ".join("" if p is None else format(p, "f") for p in prices),
                "p_yes": prices[0],
                "volume": market.volume,
                "end_date": market.end_date,
                "status": market.status,
            }
        )
    return rows


def new_universes(
    blobs: BlobStore | None, weeks: Iterable[date], published: Mapping[str, str]
) -> dict[date, list[Row]]:
    """The captured universes of the weeks not yet published, read from the audit bucket."""
    found: dict[date, list[Row]] = {}
    if blobs is None:
        return found
    for week in weeks:
        if f"{universe_path(week)}.csv" in published:
            continue
        try:
            ref = blobs.find(universe_key(week))
            if ref is None:
                continue
            markets = [Market.model_validate(m) for m in json.loads(blobs.get(ref))]
        except (ArenaError, ValueError):
            continue  # unreadable: tried again at the next fuller publication
        found[week] = universe_rows(markets)
    return found
