"""The points charts are drawn from, read only as far as a chart needs them.

A family's series is kept at four resolutions (raw 10-minute passes, hourly, daily, weekly);
its charts read the last day of raw points, a week of hourly ones, a month of six-hourly ones
(the newest hourly point of each six hours: the 1M range draws at most 120 points a series, so
a month of hourly points was 720 read to draw 120) and every weekly one, and the daily points
only when the weekly ones are too few (a young deployment). An agent's charts
read the last day of its passes and its hourly snapshots.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from operator import attrgetter

from arena_core.domain.cohort import Cohort
from arena_core.domain.portfolio import SIX_HOURS, PortfolioSnapshot, SeriesPoint, series_bucket
from arena_core.site.charts import InTimeOrder, Point, RangeChart, range_charts

FAMILY_USES = {"10M": "raw", "1H": "raw", "1D": "raw", "1W": "hour", "1M": "6h", "ALL": "week"}
AGENT_USES = {"10M": "raw", "1H": "raw", "1D": "raw", "1W": "hour", "1M": "hour", "ALL": "hour"}
FAMILY_WINDOWS: dict[str, timedelta | None] = {
    "raw": timedelta(days=1),
    "hour": timedelta(days=8),  # the 1W range's
    SIX_HOURS: timedelta(days=31),  # the 1M range's: as many points as it draws, not 720
    "day": None,
    "week": None,
}
BEGINNING = datetime(2000, 1, 1)
ZERO = Decimal(0)


class LazySeries(Mapping[str, list[SeriesPoint]]):
    """A family's points by resolution, each read once, on first use."""

    def __init__(self, read: Callable[[str], list[SeriesPoint]]) -> None:
        self._read = read
        self._found: dict[str, list[SeriesPoint]] = {}

    def __getitem__(self, resolution: str) -> list[SeriesPoint]:
        if resolution not in FAMILY_WINDOWS:
            raise KeyError(resolution)
        if resolution not in self._found:
            self._found[resolution] = self._read(resolution)
        return self._found[resolution]

    def __iter__(self) -> Iterator[str]:
        return iter(FAMILY_WINDOWS)

    def __len__(self) -> int:
        return len(FAMILY_WINDOWS)


class Measure(Mapping[str, Sequence[Point]]):
    """One measure (P/L, mean return) of a lazy series, still lazy."""

    def __init__(self, series: LazySeries, value: Callable[[SeriesPoint], Decimal]) -> None:
        self._series = series
        self._value = value
        self._points: dict[str, list[Point]] = {}

    def __getitem__(self, resolution: str) -> list[Point]:
        """The points of a resolution, made once (every range of a chart reads them)."""
        if resolution not in self._points:
            found = [Point(p.taken_at, self._value(p)) for p in self._series[resolution]]
            # Buckets are in order, and so are their newest points: sorted only if not
            found.sort(key=attrgetter("at"))
            self._points[resolution] = InTimeOrder(found)
        return self._points[resolution]

    def __iter__(self) -> Iterator[str]:
        return iter(self._series)

    def __len__(self) -> int:
        return len(self._series)


def family_series(
    read: Callable[[str, datetime, datetime], list[SeriesPoint]], now: datetime
) -> LazySeries:
    """``read(resolution, start, end)``: the store's series query for one family. A bucket's
    stored point is written when its hour closes; the bucket still open takes the newest raw
    point (read anyway, for the last day's ranges), so each bucket shows its newest point."""

    def load(resolution: str) -> list[SeriesPoint]:
        span = FAMILY_WINDOWS[resolution]
        start = now - span if span else BEGINNING.replace(tzinfo=now.tzinfo)
        points = read(resolution, start, now)
        if resolution == "raw":
            return points
        return with_open_bucket(points, series["raw"], resolution)

    series = LazySeries(load)
    return series


def with_open_bucket(
    points: list[SeriesPoint], raw: Sequence[SeriesPoint], resolution: str
) -> list[SeriesPoint]:
    """``points`` with the newest raw point as its bucket's, where that bucket's stored point
    is older (or absent)."""
    if not raw:
        return points
    newest = raw[-1]
    bucket = series_bucket(newest.taken_at, resolution)
    if points and (points[-1].bucket > bucket or points[-1].taken_at >= newest.taken_at):
        return points
    opened = newest.model_copy(update={"resolution": resolution, "bucket": bucket})
    kept = points[:-1] if points and points[-1].bucket == bucket else points
    return [*kept, opened]


def first_opens(cohorts: Iterable[Cohort]) -> dict[str, datetime]:
    """When each family's first cohort opened: its P/L is $0 there, where its charts begin."""
    found: dict[str, datetime] = {}
    for cohort in cohorts:
        for spec in cohort.lineup:
            known = found.get(spec.family_id)
            found[spec.family_id] = min(known or cohort.week_start, cohort.week_start)
    return found


def pnl_charts(
    name: str,
    series: LazySeries,
    now: datetime,
    events: Sequence[tuple[datetime, str]] = (),
    opened: datetime | None = None,
) -> list[RangeChart]:
    """A family's total P/L; ``events`` are marked on the time axis (lineup releases);
    ``opened``: its first cohort's open, where the ALL range starts."""
    measure = Measure(series, lambda p: p.pnl)
    origins = {name: Point(opened, ZERO)} if opened else None
    return range_charts([(name, measure)], now, "$", FAMILY_USES, events, origins=origins)


def return_charts(
    families: Sequence[tuple[str, LazySeries, datetime | None]], now: datetime
) -> list[RangeChart]:
    """Every family's total P/L over time (summed over its cohorts) on one chart per range,
    the ALL range from each family's first cohort's open (the third of each triple).

    Not the mean return: a cohort joins at 0%, so a mean over cohorts of different ages drops
    on the day one joins, a jump no family earned. A cohort joins a sum at $0."""
    named = [(name, Measure(series, lambda p: p.pnl)) for name, series, _ in families]
    origins = {name: Point(at, ZERO) for name, _, at in families if at is not None}
    return range_charts(named, now, "$", FAMILY_USES, origins=origins)


def agent_charts(
    name: str,
    recent: Sequence[PortfolioSnapshot],
    hourly: Sequence[PortfolioSnapshot],
    end: datetime,
) -> list[RangeChart]:
    """An agent's total value: its passes over the last day, hourly before."""
    by_resolution = {
        "raw": [Point(s.taken_at, s.total_value) for s in recent],
        "hour": [Point(s.taken_at, s.total_value) for s in hourly],
    }
    return range_charts([(name, by_resolution)], end, "$", AGENT_USES)


COHORT_USES = dict.fromkeys(("10M", "1H", "1D", "1W", "1M", "ALL"), "hour")


def cohort_charts(
    agents: Sequence[tuple[str, Sequence[PortfolioSnapshot]]], end: datetime
) -> list[RangeChart]:
    """Every agent of a cohort on one chart: its total value at each hour."""
    named = [
        (name, {"hour": [Point(s.taken_at, s.total_value) for s in hourly]})
        for name, hourly in agents
    ]
    return range_charts(named, end, "$", COHORT_USES)
