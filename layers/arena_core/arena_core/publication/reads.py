"""What one publication reads, through the state the last one left (``publication/state.py``):
the cohorts, the carried views (``publication/carried.py``), the memo, the sealed cohorts, the
growing markets table, and the readers of leaderboards and cohorts built on them; and, at the
end, the bookkeeping objects that changed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from functools import cached_property

from arena_core.analysis.figures import Rules
from arena_core.domain.cohort import Cohort, CohortStatus
from arena_core.domain.panel import Methodology, PanelQuestion
from arena_core.domain.portfolio import PortfolioSnapshot
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.publisher import LazyFile, PublishSession
from arena_core.publication.boards import BoardReader
from arena_core.publication.carried import HISTORY, CarriedViews
from arena_core.publication.cohorts import CohortReader, SiteStores
from arena_core.publication.growing import GrowingMarkets
from arena_core.publication.memo import Memo
from arena_core.publication.sealed_set import SealedSet
from arena_core.publication.state import Objects, State


class Reads:
    def __init__(
        self,
        stores: SiteStores,
        blobs: BlobStore | None,
        session: PublishSession,
        state: State,
        *,
        now: datetime,
        rules: Rules,
        fresh: Sequence[PortfolioSnapshot] = (),
    ) -> None:
        """``fresh``: snapshots just taken (the latest of their agents, not read back)."""
        self.stores = stores
        self.blobs = blobs
        self.now = now
        self.state = state
        self.known = session.known
        self.objects = Objects(state, session.read)
        self.memo = Memo(self.objects, now)
        self.sealed = SealedSet(state, self.objects, self.memo)
        self.views = CarriedViews(
            stores.views,
            state.carried,
            lambda: self.objects.get(HISTORY),
            fresh=fresh,
            finals=self.sealed.finals,
        )
        self.markets = GrowingMarkets(self.objects)
        self.reader = CohortReader(stores, self.views, blobs, now)
        self.boards = BoardReader(stores, self.views, self.memo, self.sealed, now=now, rules=rules)
        self.cohorts = stores.cohorts.cohorts()

    @property
    def live(self) -> list[Cohort]:
        """The cohorts not sealed: the active ones, and any completed since the last seal."""
        sealed = self.sealed.ids
        return [c for c in self.cohorts if c.cohort_id not in sealed]

    @cached_property
    def panel_questions(self) -> list[PanelQuestion]:
        """The questions of every week's panel, for the methodology page (issue 34)."""
        return covering_questions(self.cohorts, self.stores.panel.questions)

    def to_seal(self) -> list[Cohort]:
        return [c for c in self.live if c.status is CohortStatus.COMPLETED]

    def bookkeeping(self) -> list[LazyFile]:
        """The bookkeeping objects that changed, to write before the state that links them."""
        self.memo.flush()
        self.markets.flush()
        if self.views.history_changed:
            self.objects.put(HISTORY, self.views.history().dump())
        return [LazyFile.of(key, body) for key, body in self.objects.written().items()]


def covering_questions(
    cohorts: Sequence[Cohort], questions: Callable[[str], list[PanelQuestion]]
) -> list[PanelQuestion]:
    """The questions of every run week's panel, read from as few v1+panel cohorts as cover
    every week: every cohort of a week asks the same panel, so once the cohorts read reach a
    week, the next read is the newest cohort opened by the week after (it reaches furthest),
    else the next to open."""
    found: list[PanelQuestion] = []
    left = sorted(
        (c for c in cohorts if c.methodology_version == Methodology.V1_PANEL),
        key=lambda c: c.week_start,
    )
    while left:
        reached = max((q.run_at for q in found), default=None)
        opened = [] if reached is None else [
            c for c in left if c.week_start <= reached + timedelta(days=7)
        ]  # fmt: skip
        cohort = opened[-1] if opened else left[0]
        left = [c for c in left if c.week_start > cohort.week_start]
        found += questions(cohort.cohort_id)
    return found
