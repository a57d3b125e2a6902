"""Publish the site: plan, read, compute, render, write, each once.

A publication holds the site's lease while it runs (``ports/publisher.py``; a tick takes it once
its plan finds something due, so one with nothing due writes nothing): another that finds
it held exits cleanly, and the next one, seeing the scope it missed, publishes everything that
changed (``publication/plan.py``). It reads through the state the last one left
(``publication/reads.py``), recomputes only what its memo cannot take (``publication/memo.py``),
hands the writer lazy files (``publication/files.py``) and says what it did and why
(``SiteReport``): its scope and why it was due, the files it uploaded and each memo miss.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from arena_core.analysis.figures import Rules
from arena_core.domain.portfolio import PortfolioSnapshot
from arena_core.errors import PublicationBusyError
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.clock import Clock
from arena_core.ports.publisher import PublishSession, SitePublisher
from arena_core.publication.cohorts import SiteStores
from arena_core.publication.compute import compute
from arena_core.publication.explain import SiteReport, explained
from arena_core.publication.files import site_files
from arena_core.publication.plan import (
    BOARD,
    DAILY,
    FULL,
    LIVE,
    SCOPES,
    WEEKLY,
    Cadence,
    Plan,
    Scope,
    completed,
    plan_tick,
    plan_weekly,
)
from arena_core.publication.reads import Reads
from arena_core.publication.sealing import seal_completed
from arena_core.publication.state import State
from arena_core.site.build import SiteBuild
from arena_core.site.render import SiteRenderer

__all__ = [
    "BOARD",
    "DAILY",
    "FULL",
    "LIVE",
    "SCOPES",
    "WEEKLY",
    "PublishSiteService",
    "Scope",
    "SiteReport",
]
LEASE = timedelta(minutes=6)  # longer than a publishing function may run (5 minutes)
# A weekly publication waits this long (seconds, in turn) for a tick's to end before it gives
# up (the run's Retry then tries Finalize again): a tick holds the lease a few seconds.
WAITS = (2.0, 4.0, 8.0, 16.0)


class PublishSiteService:
    def __init__(
        self,
        stores: SiteStores,
        publisher: SitePublisher,
        blobs: BlobStore | None,
        clock: Clock,
        rules: Rules | None = None,
        *,
        simulated: frozenset[str] = frozenset(),
        cadence: Cadence | None = None,
        contact: str = "",
        lease: timedelta = LEASE,
        waits: Sequence[float] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._stores, self._publisher, self._blobs, self._clock = stores, publisher, blobs, clock
        self._rules = rules or Rules()
        self._simulated = simulated
        self._cadence = cadence or Cadence()
        self._contact = contact
        self._lease = lease
        self._waits, self._sleep = tuple(WAITS if waits is None else waits), sleep
        self.owner = f"publication-{uuid.uuid4().hex[:12]}"

    def run(
        self, scope: Scope | None = WEEKLY, *, fresh: Sequence[PortfolioSnapshot] = ()
    ) -> SiteReport:
        """Publish ``scope`` (None: what the time calls for, as a snapshot tick does);
        ``fresh``: snapshots just taken (the latest of their agents, not read back)."""
        now = self._clock.now()
        waits = self._waits if scope is WEEKLY else ()
        for wait in (*waits, None):
            try:
                # a tick holds the lease once it knows something is due (below)
                session = self._publisher.open(self.owner, now, self._lease, hold=scope is not None)
                break
            except PublicationBusyError as exc:
                if wait is None:  # a tick exits: the next one publishes what changed
                    return SiteReport.busy(now, str(exc))
                self._sleep(wait)
        try:
            return self._publish(session, scope, now, fresh)
        except BaseException:
            session.release()
            raise

    def _plan(self, scope: Scope | None, now: datetime, state: State) -> Plan | None:
        if scope is None:
            return plan_tick(now, self._cadence, state.done)
        if scope is WEEKLY:
            return plan_weekly()
        if DAILY.name not in state.done:  # a site never published gets everything at once
            return Plan(DAILY, f"never published (asked for {scope.name})")
        return Plan(scope, f"asked for {scope.name}")

    def _publish(
        self,
        session: PublishSession,
        scope: Scope | None,
        now: datetime,
        fresh: Sequence[PortfolioSnapshot],
    ) -> SiteReport:
        state, note = State.load(session.opened.state, self._publisher.identity)
        plan = self._plan(scope, now, state)  # plan
        if plan is None:
            session.release()  # never held: nothing written
            return SiteReport.idle(now)
        try:
            session.hold()
        except PublicationBusyError as exc:  # taken since it was read: that one publishes
            return SiteReport.busy(now, str(exc))
        reads = Reads(
            self._stores, self._blobs, session, state, now=now, rules=self._rules, fresh=fresh
        )  # read
        renderer = self._renderer(now, reads)
        sealed, newly = seal_completed(reads, renderer) if plan.scope.site_wide else ([], [])
        computed = compute(plan, reads)  # compute
        files = sealed + site_files(plan, reads, computed, renderer())  # render
        report = session.publish(files, repair=plan.scope.bundle)  # write
        notes = [note, *session.opened.notes]
        drawn = [*newly, *(v.cohort.cohort_id for v in computed.views)]
        explanation = explained(plan, now, report, reads.memo, notes=notes, cohorts=drawn)
        state.done |= completed(plan.scope, now)
        state.report(explanation.record())
        session.publish(reads.bookkeeping())
        session.commit(state.dump())
        return explanation

    def _renderer(self, now: datetime, reads: Reads) -> Callable[[], SiteRenderer]:
        cadence = self._cadence
        build = SiteBuild.of(
            self._simulated,
            reads.cohorts,
            board_minutes=cadence.board,
            live_minutes=cadence.live,
            contact=self._contact,
        )
        made: list[SiteRenderer] = []

        def renderer() -> SiteRenderer:
            if not made:
                made.append(SiteRenderer(now, build=build))
            return made[0]

        return renderer
