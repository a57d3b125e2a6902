"""What one publication carries over to the next, so that the leaderboard regenerated after
every snapshot reads what changed, not the whole history.

The leaderboard needs every bet score of every family, every completed cohort's final
snapshots, and a month of each family's hourly points (its charts): read afresh every ten
minutes, that is tens of thousands of read units a tick after a year, almost all of it unchanged
since the last tick. Each publication therefore writes what it read to gzipped JSON files of
the site's bookkeeping (beside the manifest under ``_internal/``: never served, though nothing
in them is secret) and the next one starts from them. What every tick reads and changes is in
``CARRIED``; the scores and final snapshots, which change a few times a day, are in
``HISTORY``, read only by a publication that needs them; what the publications computed (kept
statistics and table digests) is in ``KEPT``, read by every one. Both are written only when
they changed, and ``CARRIED`` names the digest of each file it was written with (another one,
left by a publication that failed half-way, is not read):

- a family's scores are taken from it while its count matches the family aggregate's
  ``scored_bets`` (written in the same transaction as the scores: one query reads every
  family's), and read again (then carried) when it does not;
- a completed cohort's final snapshots never change: read once, carried ever after;
- series points at hourly, daily and weekly resolution are read from the last carried bucket
  onward (that bucket included: the newest bucket of a resolution is rewritten until it closes);
  raw 10-minute points change every pass and are read as before, for the last day only;
- the home page's latest decisions (they change with a decision run, whose publication reads
  the cohorts' records in full) are carried for the publications that do not read them;
- what the publication computed rather than read: the forecasts' table digests and statistics
  with the digest of what they were computed from (``site/boards.py``: a tick with no bet
  scored or matured neither formats nor analyses one).

A file that is missing, unreadable or of another version is treated as empty: the publication
reads everything, as before, and carries it from then on.
"""

from __future__ import annotations

import gzip
import json
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from operator import attrgetter, lt

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from arena_core.domain.aggregates import FamilyAggregate
from arena_core.domain.cohort import Agent, Cohort, CohortStatus
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
from arena_core.ports.publisher import INTERNAL, digest
from arena_core.ports.view_store import ViewStore

CARRIED = f"{INTERNAL}carried/leaderboard.json.gz"  # bookkeeping: never served
HISTORY = f"{INTERNAL}carried/history.json.gz"  # the scores and final snapshots, read if needed
KEPT = f"{INTERNAL}carried/kept.json.gz"  # what was computed, with what it was computed from
VERSION = 4  # 2: no record of the tables' files; 3: HISTORY; 4: KEPT
CARRIED_RESOLUTIONS = ("hour", SIX_HOURS, "day", "week")  # raw points: read, not carried


class FeedEntry(BaseModel):
    """One decision of the home page's feed, as the site shows it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent: Agent
    record: DecisionRecord
    reasoning: str


def _gzipped_json(model: BaseModel) -> bytes:
    """Deterministic bytes (no time in the gzip header): unchanged state, unchanged file,
    nothing uploaded. The fastest level: ``CARRIED`` is written every ten minutes, and a few
    kilobytes more in the bookkeeping cost nothing."""
    return gzip.compress(model.model_dump_json().encode(), compresslevel=1, mtime=0)


class History(BaseModel):
    """What changes a few times a day and is read only where it is needed: every family's
    scores and every completed cohort's final snapshots (most of the carried bytes after a
    year: parsed and written again every ten minutes, they were most of a tick's time)."""

    model_config = ConfigDict(extra="forbid")

    # One more at each write: no history is written twice with the same bytes, so one a
    # failed publication left behind is never taken by the publisher for one it wrote.
    generation: int = 0
    scores: dict[str, list[BetScore]] = {}  # by family, in trade-id order
    finals: dict[str, list[PortfolioSnapshot]] = {}  # by completed cohort

    @classmethod
    def load(cls, body: bytes) -> History:
        try:
            return cls.model_validate_json(gzip.decompress(body))
        except (OSError, EOFError, ValueError, ValidationError):
            return cls()  # unreadable: read everything again

    def dump(self) -> bytes:
        return _gzipped_json(self)


class Carried(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = VERSION
    # The digest and generation of the history file (``HISTORY``) this state was written
    # with: another file (a publication that failed between the two uploads) is not read.
    history: str = ""
    history_generation: int = 0
    # How many scores of each family the history holds: compared with the family aggregates'
    # counts without reading it.
    score_counts: dict[str, int] = {}
    series: dict[str, list[SeriesPoint]] = {}  # by "family/resolution", in bucket order
    feed: list[FeedEntry] | None = None  # None: never read yet
    # Completed cohorts whose positions were read into the position_returns table (some have
    # none: a cohort that never traded is not read again every tick).
    positions_read: list[str] = []
    # The digest and generation of the kept file (``KEPT``) this state was written with.
    kept: str = ""
    kept_generation: int = 0
    # What the publication computed rather than read, with the digest of what it was computed
    # from, by "methodology/part" (``site/boards.py``, ``site/collect.py``, ``site/completed.py``,
    # ``site/table_memo.py``): it changes when a bet is scored or matures, or a cohort completes.
    # Written to ``KEPT``, only when it changed (most of the carried bytes after a year).
    statistics: dict[str, tuple[str, str]] = Field(default={}, exclude=True)
    _statistics_read: dict[str, tuple[str, str]] = PrivateAttr(default_factory=dict)

    @field_validator("series")
    @classmethod
    def _in_bucket_order(cls, series: dict[str, list[SeriesPoint]]) -> dict[str, list[SeriesPoint]]:
        """Each series in bucket order, one point a bucket (what ``CarriedViews.series``
        windows by bisection): a file that is not is not read."""
        for points in series.values():
            buckets = list(map(attrgetter("bucket"), points))
            if not all(map(lt, buckets, buckets[1:])):
                raise ValueError("a carried series is not in bucket order")
        return series

    @classmethod
    def load(cls, body: bytes | None, kept: bytes | None = None) -> Carried:
        """The state of ``CARRIED`` (``body``), with the statistics of ``KEPT`` (``kept``) when
        it is the file the state was written with."""
        if not body:
            return cls()
        try:
            carried = cls.model_validate_json(gzip.decompress(body))
        except (OSError, EOFError, ValueError, ValidationError):
            return cls()  # unreadable: read everything again
        if carried.version != VERSION:
            return cls()
        if kept and carried.kept == digest(kept):
            carried.statistics = kept_statistics(kept)
            carried._statistics_read = dict(carried.statistics)
        return carried

    def files(self) -> dict[str, bytes]:
        """``CARRIED``, and ``KEPT`` when the statistics changed."""
        files = {}
        if self.statistics != self._statistics_read:
            self.kept_generation += 1
            body = kept_body(self.kept_generation, self.statistics)
            self.kept = digest(body)
            self._statistics_read = dict(self.statistics)
            files[KEPT] = body
        files[CARRIED] = _gzipped_json(self)
        return files

    def dump(self) -> bytes:
        return _gzipped_json(self)


def kept_body(generation: int, statistics: Mapping[str, tuple[str, str]]) -> bytes:
    """``KEPT``'s bytes: a header line (the generation, and each slot's key and the length in
    bytes of its text), then the texts, in slot order. Read back by cutting the texts out, not
    by unescaping them from one JSON document: they are JSON themselves (a year's board and
    completed rows), and every tick reads them."""
    slots = sorted(statistics)
    texts = [statistics[slot][1].encode() for slot in slots]
    lengths = zip(slots, map(len, texts), strict=True)
    header = {"generation": generation, "slots": [[s, statistics[s][0], n] for s, n in lengths]}
    body = json.dumps(header, separators=(",", ":")).encode() + b"\n" + b"".join(texts)
    return gzip.compress(body, compresslevel=6, mtime=0)


def kept_statistics(body: bytes) -> dict[str, tuple[str, str]]:
    """The statistics of a ``KEPT`` file, or none when it cannot be read (computed again)."""
    try:
        head, _, texts = gzip.decompress(body).partition(b"\n")
        found: dict[str, tuple[str, str]] = {}
        at = 0
        for slot, key, length in json.loads(head)["slots"]:
            if not (isinstance(slot, str) and isinstance(key, str) and type(length) is int):
                return {}
            if length < 0 or at + length > len(texts):
                return {}
            found[slot] = (key, texts[at : at + length].decode())
            at += length
        return found if at == len(texts) else {}
    except (OSError, EOFError, ValueError, KeyError, TypeError):
        return {}  # UnicodeDecodeError and JSONDecodeError are ValueErrors


class CarriedViews(ViewStore):
    """A view store that answers the leaderboard's reads from the carried state, reading only
    what changed since, and records what it read for the next publication (``files``)."""

    def __init__(
        self,
        inner: ViewStore,
        carried: Carried,
        history: Callable[[], bytes | None] = lambda: None,
        *,
        fresh: Sequence[PortfolioSnapshot] = (),
    ) -> None:
        """``history``: reads the history file, called once if at all (when a score or a
        final snapshot is needed); ``fresh``: snapshots just taken (a pass's, before its
        publication): the latest of their agents, so an active cohort they all cover is not
        read back."""
        self._inner = inner
        self._carried = carried
        self._read_history = history
        self._history: History | None = None
        self._history_changed = False
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
            if body and self._carried.history == digest(body):
                self._history = History.load(body)
            else:  # none, or not the one this state was written with: start over
                self._history, self._history_changed = History(), True
                self._carried.score_counts = {}
        return self._history

    def files(self) -> dict[str, bytes]:
        """The carried state's files: the history only when it changed."""
        files = {}
        if self._history is not None and self._history_changed:
            self._history.generation = self._carried.history_generation + 1
            body = self._history.dump()
            self._carried.history = digest(body)
            self._carried.history_generation = self._history.generation
            files[HISTORY] = body
        return files | self._carried.files()

    # --- what the leaderboard reads ------------------------------------------------------------

    def latest_snapshots(self, cohort: Cohort) -> dict[str, PortfolioSnapshot]:
        completed = cohort.status is CohortStatus.COMPLETED
        if completed and cohort.cohort_id in self.history().finals:
            return {s.agent_id: s for s in self.history().finals[cohort.cohort_id]}
        if not self._covers(cohort):
            found = self._inner.latest_snapshots(cohort)
            self._latest[cohort.cohort_id] = found
            if completed and len(found) == len(cohort.lineup):
                ordered = sorted(found.values(), key=lambda s: s.agent_id)
                self.history().finals[cohort.cohort_id] = ordered
                self._history_changed = True
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
            self._history_changed = True
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
