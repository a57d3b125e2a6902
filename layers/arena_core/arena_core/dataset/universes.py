"""Each week's captured universe as a table of the dataset: written once, the first time a
publication finds the week's capture not yet published (one read of the audit object), and read
again only to repair it or to put it in ``dataset.zip``."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import Any

from arena_core.constants import universe_key
from arena_core.domain.cohort import WEEK, Cohort
from arena_core.domain.market import Market
from arena_core.errors import ArenaError, NotFoundError
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


def universe_table(blobs: BlobStore | None, week: date) -> list[Row]:
    """The rows of the universe captured for ``week``, read from the audit bucket
    (``NotFoundError`` when none was captured or it cannot be read)."""
    shown = week.isoformat()
    try:
        ref = blobs.find(universe_key(week)) if blobs is not None else None
        if blobs is None or ref is None:
            raise NotFoundError(f"no universe captured for {shown}")
        markets = [Market.model_validate(m) for m in json.loads(blobs.get(ref))]
    except NotFoundError:
        raise
    except (ValueError, ArenaError) as exc:
        raise NotFoundError(f"the universe of {shown} cannot be read") from exc
    return universe_rows(markets)


def new_universes(
    blobs: BlobStore | None, weeks: Iterable[date], published: Callable[[date], bool]
) -> dict[date, list[Row]]:
    """The captured universes of the weeks not yet ``published``, read from the audit bucket;
    one that cannot be read is tried again at the next fuller publication."""
    found: dict[date, list[Row]] = {}
    for week in weeks:
        if published(week):
            continue
        try:
            found[week] = universe_table(blobs, week)
        except NotFoundError:
            continue
    return found
