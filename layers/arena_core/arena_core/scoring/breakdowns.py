"""Breakdowns of scored forecasts: by market category and by time from forecast to close.

Neither a category nor a close time is part of a ``ScoredForecast``: they come from a mapping
or a key function, so the forecast record stays the same for every breakdown. Each breakdown
returns rows; the caller then groups them by cohort and bootstraps each part.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Final

from arena_core.scoring.forecasts import ScoredForecast

UNKNOWN: Final = "unknown"
UNDER_WEEK: Final = "under_week"
UNDER_MONTH: Final = "under_month"
LONGER: Final = "longer"
Key = Callable[[ScoredForecast], str | None]


def breakdown(rows: Iterable[ScoredForecast], key: Key) -> dict[str, list[ScoredForecast]]:
    """Rows split by ``key`` (sorted); rows whose key is None go to ``"unknown"``, so the parts
    always add up to the whole."""
    parts: dict[str, list[ScoredForecast]] = {}
    for row in rows:
        label = key(row)
        parts.setdefault(UNKNOWN if label is None else label, []).append(row)
    return dict(sorted(parts.items()))


def by_category(
    rows: Iterable[ScoredForecast], category: Mapping[str, str] | Key
) -> dict[str, list[ScoredForecast]]:
    """Rows by market category: a mapping market_id -> category, or a function of a row."""
    if isinstance(category, Mapping):
        table = category
        return breakdown(rows, lambda row: table.get(row.market_id))
    return breakdown(rows, category)


def horizon_bucket(time_to_close: timedelta) -> str:
    """``under_week`` (< 7 days), ``under_month`` (< 30 days) or ``longer``."""
    if time_to_close < timedelta(days=7):
        return UNDER_WEEK
    return UNDER_MONTH if time_to_close < timedelta(days=30) else LONGER


Moment = Mapping[str, datetime] | Callable[[ScoredForecast], datetime | None]


def by_time_to_close(
    rows: Iterable[ScoredForecast], close_time: Moment, forecast_time: Moment
) -> dict[str, list[ScoredForecast]]:
    """Rows by time from forecast to market close (see ``horizon_bucket``).

    ``close_time``: a mapping market_id -> close time, or a function of a row. ``forecast_time``:
    a mapping cohort_id -> when the cohort's forecasts were made, or a function of a row.
    """
    close = _moment(close_time, lambda row: row.market_id)
    made = _moment(forecast_time, lambda row: row.cohort_id)

    def bucket(row: ScoredForecast) -> str | None:
        end, start = close(row), made(row)
        return None if end is None or start is None else horizon_bucket(end - start)

    return breakdown(rows, bucket)


def _moment(
    source: Moment, field: Callable[[ScoredForecast], str]
) -> Callable[[ScoredForecast], datetime | None]:
    if isinstance(source, Mapping):
        table = source
        return lambda row: table.get(field(row))
    return source
