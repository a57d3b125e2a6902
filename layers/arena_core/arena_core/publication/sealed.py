"""Completed cohorts, sealed once: what the site keeps of a cohort when it completes, in one record
written by one function (``seal``), never changed after.

A completed cohort's figures are final: its agents' final snapshots, its positions (settled, with
their realized P/L), its decisions and what they cost. The publication that first finds a cohort
completed reads it whole, draws its final pages and tables, and seals it: the record (here) and
its data tables' bytes (for ``dataset.zip``) go to the bookkeeping, linked from the state. From
then on the leaderboard, the costs table, the home feed and the model pages take the cohort from
its record; its pages are kept as published (and redrawn only to repair them).
"""

from __future__ import annotations

import gzip
import io
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from arena_core.dataset.records import CohortView
from arena_core.domain.portfolio import PortfolioSnapshot
from arena_core.publication.carried import FeedEntry
from arena_core.site.board_pages import RECENT_DECISIONS
from arena_core.site.feed import FEED_LENGTH

Row = dict[str, Any]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PositionRow(_Frozen):
    """A row of ``position_returns``."""

    methodology: str
    family_id: str
    agent_id: str
    cohort_id: str
    position_id: str
    market_id: str
    event_id: str | None
    run_week: str
    closes_at: datetime | None
    realized_pnl: Decimal
    pnl_pct: Decimal


class CostRow(_Frozen):
    """A row of ``costs``."""

    family_id: str
    cohort_id: str
    week: int
    methodology: str
    model_id: str
    answered_by: str
    decisions: int
    replies: int
    tokens_in: int
    tokens_out: int
    cost_usd: Decimal
    latency_ms: int


class SealedCohort(_Frozen):
    cohort_id: str
    methodology: str
    finals: tuple[PortfolioSnapshot, ...]  # every agent's final snapshot, by agent id
    positions: tuple[PositionRow, ...]
    costs: tuple[CostRow, ...]
    markets: tuple[str, ...]  # every market it held, traded or was asked about
    asked: tuple[str, ...]  # the markets its panel asked about (v1+panel)
    decisions: tuple[FeedEntry, ...]  # its latest: the cohort's and each agent's, newest first
    files: tuple[str, ...]  # the readers' files its pages and tables are published as

    def dump(self) -> bytes:
        return gzip.compress(self.model_dump_json().encode(), compresslevel=6, mtime=0)

    @classmethod
    def load(cls, body: bytes | None) -> SealedCohort | None:
        """The record, or None when it cannot be read (the cohort is then sealed again)."""
        if body is None:
            return None
        try:
            return cls.model_validate_json(gzip.decompress(body))
        except (OSError, EOFError, ValueError, ValidationError):
            return None


def latest_decisions(view: CohortView) -> list[FeedEntry]:
    """What the home feed and the model pages can take from the cohort: its last decisions
    overall and each agent's last ones, newest first."""
    found = [
        (
            d.record.updated_at,
            d.record.decision_id,
            FeedEntry(agent=a.agent, record=d.record, reasoning=d.reasoning, named=dict(d.named)),
        )
        for a in view.agents
        for d in a.decisions
    ]
    found.sort(key=lambda e: (e[0], e[1]), reverse=True)
    keep = {e[1] for e in found[:FEED_LENGTH]}
    for agent in view.agents:
        mine = sorted(agent.decisions, key=lambda d: d.record.updated_at)[-RECENT_DECISIONS:]
        keep |= {d.record.decision_id for d in mine}
    return [entry for _, decision, entry in found if decision in keep]


def seal(
    view: CohortView,
    finals: Mapping[str, PortfolioSnapshot],
    positions: Sequence[Row],
    costs: Sequence[Row],
    files: Iterable[str],
) -> SealedCohort:
    """The record of a completed cohort read whole (``view``, with every agent's final
    snapshot), its position and cost rows, and the files its final pages are published as."""
    return SealedCohort(
        cohort_id=view.cohort.cohort_id,
        methodology=view.cohort.methodology_version,
        finals=tuple(finals[a] for a in sorted(finals)),
        positions=tuple(PositionRow.model_validate(row) for row in positions),
        costs=tuple(CostRow.model_validate(row) for row in costs),
        markets=tuple(sorted(view.markets)),
        asked=tuple(sorted({q.market.market_id for q in view.questions})),
        decisions=tuple(latest_decisions(view)),
        files=tuple(sorted(files)),
    )


def data_archive(files: Mapping[str, bytes]) -> bytes:
    """A sealed cohort's data tables (``data/...`` paths), for every later ``dataset.zip``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(files):
            info = zipfile.ZipInfo(path, (2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[path])
    return buffer.getvalue()


def archived(body: bytes | None) -> dict[str, bytes]:
    """The files of a data archive, or none when it cannot be read."""
    if body is None:
        return {}
    try:
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            return {name: archive.read(name) for name in archive.namelist()}
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, RuntimeError):
        return {}
