"""What a publication says of itself: its scope and why it was due, what it uploaded (and
repaired), each memo miss with its reason, and what it noticed (a state it could not take). The
snapshot function logs it; the state keeps the last ones for ``arena status``."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from arena_core.ports.publisher import PublishReport
from arena_core.publication.memo import Memo
from arena_core.publication.plan import Plan
from arena_core.publication.state import Report

PATHS_KEPT = 40  # paths a kept report names (a weekly publication uploads thousands)


class SiteReport(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    at: datetime
    lease: str  # held (published), busy (another held the lease: nothing written), idle
    scope: str | None = None  # board, live, full, daily or weekly
    why: str = ""
    files: int = 0
    uploaded: int = 0
    paths: tuple[str, ...] = ()  # every file written, in the order written
    repaired: tuple[str, ...] = ()  # of those, the ones the bucket held otherwise out of band
    misses: tuple[str, ...] = ()  # "address: reason", each value the memo computed again
    hits: int = 0
    notes: tuple[str, ...] = ()
    cohorts_rendered: tuple[str, ...] = ()  # the cohorts whose records were read (sealed)

    @classmethod
    def busy(cls, at: datetime, why: str) -> SiteReport:
        return cls(at=at, lease="busy", why=why)

    @classmethod
    def idle(cls, at: datetime) -> SiteReport:
        return cls(at=at, lease="idle", why="nothing due")

    def record(self) -> Report:
        return Report(
            at=self.at,
            scope=self.scope or "-",
            why=self.why,
            uploaded=self.uploaded,
            paths=list(self.paths[:PATHS_KEPT]),
            misses=list(self.misses[:PATHS_KEPT]),
            repaired=len(self.repaired),
        )

    def lines(self) -> list[str]:
        """The report in words, one line each (what the log and ``arena status`` print)."""
        head = f"{self.scope or '-'} ({self.why}): {self.uploaded} of {self.files} files uploaded"
        found = [head + (f", {len(self.repaired)} repaired" if self.repaired else "")]
        found += [f"  uploaded {p}" for p in self.paths]
        found += [f"  recomputed {m}" for m in self.misses]
        found += [f"  note: {n}" for n in self.notes]
        return found


def explained(
    plan: Plan,
    at: datetime,
    report: PublishReport,
    memo: Memo,
    *,
    notes: Iterable[str | None],
    cohorts: Iterable[str] = (),
) -> SiteReport:
    return SiteReport(
        at=at,
        lease="held",
        scope=plan.scope.name,
        why=plan.why,
        files=len(report.uploaded) + report.unchanged,
        uploaded=len(report.uploaded),
        paths=report.uploaded,
        repaired=report.repaired,
        misses=tuple(f"{address}: {reason}" for address, reason in memo.misses),
        hits=len(memo.hits),
        notes=tuple(n for n in notes if n),
        cohorts_rendered=tuple(cohorts),
    )
