"""What one publication carries over to the next, so that the leaderboard regenerated after
every snapshot reads what changed, not the whole history.

The leaderboard needs every bet score of every family, every completed cohort's final
snapshots, and a month of each family's hourly points (its charts): read afresh every ten
minutes, that is tens of thousands of read units a tick after a year, almost all of it unchanged
since the last tick. So a publication reads through the state the last one left
(``publication/state.py``):

- a family's scores are taken from the history (a bookkeeping object, read only when a score is
  needed) while its count matches the family aggregate's ``scored_bets`` (written in the same
  transaction as the scores: one query reads every family's), and read again (then carried) when
  it does not;
- a sealed cohort's final snapshots come from its sealed record (``publication/sealed.py``);
- series points at hourly, six-hourly, daily and weekly resolution are read from the last carried
  bucket onward (that bucket included: the newest bucket of a resolution is rewritten until it
  closes); raw 10-minute points change every pass and are read as before, for the last day only;
- the home page's latest decisions (they change with a decision run, whose publication reads
  the cohorts' records in full) are carried for the publications that do not read them.
"""

from __future__ import annotations

import gzip
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from datetime import datetime
from operator import attrgetter, lt

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from arena_core.domain.aggregates import FamilyAggregate
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.decisions import DecisionRecord
from arena_core.domain.holdings import AgentRecords
from arena_core.domain.portfolio import (
    SIX_HOURS,
    BetScore,
    FamilyTotals,
    PortfolioSnapshot,
    SeriesPoint,
    six_hourly,
)
from arena_core.ports.view_store import ViewStore

CARRIED_RESOLUTIONS = ("hour", SIX_HOURS, "day", "week")  # raw points: read, not carried
HISTORY = "history"  # the bookkeeping object of every family's scores


class FeedEntry(BaseModel):
    """One decision of the home page's feed, as the site shows it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent: Agent
    record: DecisionRecord
    reasoning: str
    named: dict[str, str] = {}  # the cohort's markets the reasoning names (``DecisionView``)


class History(BaseModel):
    """Every family's scores, in trade-id order (most of the carried bytes after a year: read
    only where a score is needed)."""

    model_config = ConfigDict(extra="forbid")

    scores: dict[str, list[BetScore]] = {}

    @classmethod
    def load(cls, body: bytes | None) -> History:
        if body is None:
            return cls()
        try:
            return cls.model_validate_json(gzip.decompress(body))
        except (OSError, EOFError, ValueError, ValidationError):
            return cls()  # unreadable: read everything again

    def dump(self) -> bytes:
        return gzip.compress(self.model_dump_json().encode(), compresslevel=1, mtime=0)


class Carried(BaseModel):
    """What every tick reads and changes: part of the state (``publication/state.py``)."""

    model_config = ConfigDict(extra="forbid")

    # How many scores of each family the history holds: compared with the family aggregates'
    # counts without reading it.
    score_counts: dict[str, int] = {}
    series: dict[str, list[SeriesPoint]] = {}  # by "family/resolution", in bucket order
    feed: list[FeedEntry] | None = None  # None: never read yet

    @field_validator("series")
    @classmethod
    def _in_bucket_order(cls, series: dict[str, list[SeriesPoint]]) -> dict[str, list[SeriesPoint]]:
        """Each series in bucket order, one point a bucket (what ``CarriedViews.series``
        windows by bisection): a state that is not is not read."""
        if not in_bucket_order(series):
            raise ValueError("a carried series is not in bucket order")
        return series


def in_bucket_order(series: dict[str, list[SeriesPoint]]) -> bool:
    """Whether each series is in bucket order, one point a bucket."""
    for points in series.values():
        buckets = list(map(attrgetter("bucket"), points))
        if not all(map(lt, buckets, buckets[1:])):
            return False
    return True


class CarriedViews(ViewStore):
    """A view store that answers the leaderboard's reads from the carried state, reading only
    what changed since, and records what it read for the next publication."""

    def __init__(
        self,
        inner: ViewStore,
        carried: Carried,
        history: Callable[[], bytes | None] = lambda: None,
        *,
        fresh: Sequence[PortfolioSnapshot] = (),
        finals: Callable[[str], list[PortfolioSnapshot] | None] = lambda _: None,
    ) -> None:
        """``history``: reads the history object, called once if at all (when a score is
        needed); ``fresh``: snapshots just taken (a pass's, before its publication): the latest
        of their agents, so an active cohort they all cover is not read back; ``finals``: a
        sealed cohort's final snapshots (None: not sealed)."""
        self._inner = inner
        self._carried = carried
        self._read_history = history
        self._finals = finals
        self._history: History | None = None
        self.history_changed = False
        self._aggregates: dict[str, FamilyAggregate] | None = None
        self._latest: dict[str, dict[str, PortfolioSnapshot]] = {}
        for snapshot in fresh:
            self._latest.setdefault(snapshot.cohort_id, {})[snapshot.agent_id] = snapshot

    @property
    def carried(self) -> Carried:
        return self._carried

    def history(self) -> History:
        if self._history is None:
            body = self._read_history()
            self._history = History.load(body)
            if body is None:  # none, or not the one this state was written with: start over
                self._carried.score_counts = {}
        return self._history

    # --- what the leaderboard reads ------------------------------------------------------------

    def latest_snapshots(self, cohort: Cohort) -> dict[str, PortfolioSnapshot]:
        sealed = self._finals(cohort.cohort_id)
        if sealed is not None:
            return {s.agent_id: s for s in sealed}
        if not self._covers(cohort):
            self._latest[cohort.cohort_id] = self._inner.latest_snapshots(cohort)
        return self._latest[cohort.cohort_id]

    def _covers(self, cohort: Cohort) -> bool:
        """Whether every agent of the cohort's latest is known already."""
        known = self._latest.get(cohort.cohort_id, {})
        return len(known) == len(cohort.lineup) and all(
            Agent.id_for(cohort.cohort_id, spec.family_id) in known for spec in cohort.lineup
        )

    def family_aggregates(self) -> dict[str, FamilyAggregate]:
        if self._aggregates is None:
            self._aggregates = self._inner.family_aggregates()
        return self._aggregates

    def scored_count(self, family_id: str) -> int:
        """How many of the family's bets are scored (its aggregate's count)."""
        aggregate = self.family_aggregates().get(family_id)
        return aggregate.scored_bets if aggregate else 0

    def family_scores(self, family_id: str) -> list[BetScore]:
        expected = self.scored_count(family_id)
        if self._carried.score_counts.get(family_id) == expected:
            carried = self.history().scores.get(family_id)
            if carried is not None and len(carried) == expected:
                return list(carried)
        found = self._inner.family_scores(family_id)
        if len(found) == expected:  # an index still catching up is read again next time
            self.history().scores[family_id] = found
            self._carried.score_counts[family_id] = expected
            self.history_changed = True
        return found

    def series(
        self, family_id: str, resolution: str, start: datetime, end: datetime
    ) -> list[SeriesPoint]:
        """A family's points at ``resolution`` (``SIX_HOURS`` too: read from the hourly ones
        and carried as such, not stored)."""
        if resolution not in CARRIED_RESOLUTIONS:
            return self._inner.series(family_id, resolution, start, end)
        key = f"{family_id}/{resolution}"
        carried = self._carried.series.get(key, [])
        bucket = attrgetter("bucket")
        kept = carried[
            bisect_left(carried, start, key=bucket) : bisect_right(carried, end, key=bucket)
        ]
        since = max(start, kept[-1].bucket) if kept else start
        if resolution == SIX_HOURS:
            found = six_hourly(self._inner.series(family_id, "hour", since, end))
        else:
            found = self._inner.series(family_id, resolution, since, end)
        # Only the newest kept bucket can be read again (it was open): the older ones stay.
        closed = kept[: bisect_left(kept, since, key=bucket)]
        tail = {p.bucket: p for p in kept[len(closed) :]} | {p.bucket: p for p in found}
        merged = closed + [tail[b] for b in sorted(tail)]
        self._carried.series[key] = merged
        return merged

    def remember_feed(self, entries: Sequence[FeedEntry]) -> None:
        self._carried.feed = list(entries)

    # --- everything else, as the store answers it ------------------------------------------------

    def agent_records(self, agent_id: str) -> AgentRecords:
        return self._inner.agent_records(agent_id)

    def put_snapshots(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        self._inner.put_snapshots(snapshots)

    def put_hourly(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        self._inner.put_hourly(snapshots)

    def put_finals(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        self._inner.put_finals(snapshots)

    def put_final_totals(self, totals: Sequence[FamilyTotals]) -> None:
        self._inner.put_final_totals(totals)

    def final_totals(self) -> list[FamilyTotals]:
        return self._inner.final_totals()

    def snapshots(self, agent_id: str, start: datetime, end: datetime) -> list[PortfolioSnapshot]:
        return self._inner.snapshots(agent_id, start, end)

    def hourly_snapshots(
        self, agent_id: str, start: datetime, end: datetime
    ) -> list[PortfolioSnapshot]:
        return self._inner.hourly_snapshots(agent_id, start, end)

    def put_series(self, points: Sequence[SeriesPoint]) -> None:
        self._inner.put_series(points)

    def record_job_run(self, job: str, at: datetime) -> None:
        self._inner.record_job_run(job, at)

    def job_runs(self) -> dict[str, datetime]:
        return self._inner.job_runs()
