"""What one publication reads, through the state the last one left (``publication/state.py``):
the cohorts, the carried views (``publication/carried.py``), the memo, the sealed cohorts, the
growing markets table, and the readers of leaderboards and cohorts built on them; and, at the
end, the bookkeeping objects that changed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from arena_core.analysis.figures import Rules
from arena_core.domain.cohort import Cohort, CohortStatus
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

    def to_seal(self) -> list[Cohort]:
        return [c for c in self.live if c.status is CohortStatus.COMPLETED]

    def bookkeeping(self) -> list[LazyFile]:
        """The bookkeeping objects that changed, to write before the state that links them."""
        self.memo.flush()
        self.markets.flush()
        if self.views.history_changed:
            self.objects.put(HISTORY, self.views.history().dump())
        return [LazyFile.of(key, body) for key, body in self.objects.written().items()]
