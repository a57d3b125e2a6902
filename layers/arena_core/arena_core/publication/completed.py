"""The sealed cohorts' part of the returns tables, kept between publications.

Every family's row of ``family_returns`` and every completed cohort's positions
(``position_returns``) grow with history, while between two publications only the live
cohorts' rows move: a sealed cohort's row is its final snapshot, and its positions are settled.
Formatting a year of those rows every ten minutes was most of what grew in a tick. The
publication's memo therefore keeps, per methodology, what the sealed cohorts contribute as it
was written: each row's CSV line and JSON item, the row as the leaderboard's analysis reads it
(parsed from that line once, by the code that parses the published table), the digests of
``position_returns``, and the newest final snapshot's time. A tick formats and parses only the
live cohorts' rows and assembles the table around the kept ones (``exports.assembled``: the same
bytes as formatting every row; ``LiveReturns.records``: the same records as parsing them).

The part is a function of the methodology's sealed cohorts and its families, until the first
position they held reaches its scheduled end (``until``): then the ``matured`` column of its row
changes, and the part is computed again.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from arena_core.analysis import dataset
from arena_core.analysis.dataset import CohortRecord
from arena_core.analysis.rows import CohortReturn
from arena_core.dataset import exports
from arena_core.dataset.table import Digests
from arena_core.domain.portfolio import PortfolioSnapshot

RETURNS = "family_returns"


@dataclass(frozen=True)
class CompletedPart:
    """What a methodology's completed cohorts contribute to the returns tables."""

    until: datetime | None  # when the first of their positions not ended by then ends
    returns: tuple[tuple[str, str, str, str], ...]  # (family, cohort, CSV line, JSON item)
    positions: Digests  # of position_returns (the completed cohorts' positions only)
    as_of: datetime | None  # the newest of their final snapshots
    records: tuple[CohortRecord, ...] = ()  # each row of ``returns`` as the analysis reads it

    def dump(self) -> str:
        """Column by column: read back with a type check per column, not per row."""
        families, cohorts, lines, items = ([row[i] for row in self.returns] for i in range(4))
        return json.dumps(
            {
                "until": self.until.isoformat() if self.until else None,
                "family_id": families,
                "cohort_id": cohorts,
                "line": lines,
                "item": items,
                "return_pct": [r.result.return_pct for r in self.records],
                "total_pnl": [str(r.total_pnl) for r in self.records],
                "trades": [r.trades for r in self.records],
                "matured": [r.result.matured for r in self.records],
                "positions": list(self.positions),
                "as_of": self.as_of.isoformat() if self.as_of else None,
            },
            separators=(",", ":"),
        )

    @classmethod
    def load(cls, text: str) -> CompletedPart:
        """The part kept as ``text`` (``ValueError`` or ``TypeError`` when it cannot be read:
        then it is computed again, as without it)."""
        try:
            found = json.loads(text)
            families, cohorts, lines, items, pnl = (
                _column(found, name, str)
                for name in ("family_id", "cohort_id", "line", "item", "total_pnl")
            )
            returns = tuple(zip(families, cohorts, lines, items, strict=True))
            records = tuple(
                CohortRecord(CohortReturn(f, c, c, pct, matured), Decimal(dollars), trades)
                for f, c, pct, matured, dollars, trades in zip(
                    families,
                    cohorts,
                    _column(found, "return_pct", float),
                    _column(found, "matured", bool),
                    pnl,
                    _column(found, "trades", int),
                    strict=True,
                )
            )
            positions = digests_of(found["positions"])
            return cls(
                _moment(found["until"]), returns, positions, _moment(found["as_of"]), records
            )
        except (KeyError, InvalidOperation) as exc:
            raise ValueError(f"a kept part cannot be read: {type(exc).__name__}") from exc


_HEX = frozenset("0123456789abcdef")


def digests_of(found: object) -> Digests:
    """A table's digests as kept (two SHA-256 hex digests)."""
    if isinstance(found, list) and len(found) == 2:
        csv, json_digest = found
        if all(isinstance(d, str) and len(d) == 64 and set(d) <= _HEX for d in (csv, json_digest)):
            return csv, json_digest
    raise ValueError("not a table's digests")


def _column(found: Mapping[str, object], name: str, kind: type) -> list[Any]:
    """A kept column, each value of exactly ``kind`` (a count is no flag, a return no count)."""
    column = found[name]
    if not isinstance(column, list) or not set(map(type, column)) <= {kind}:
        raise TypeError(f"the kept column {name} is not a list of {kind.__name__}")
    return column


def _moment(value: object) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError("a kept moment is not a text")
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        raise ValueError("a kept moment has no time zone")
    return moment


def computed(
    now: datetime,
    *,
    returns: Sequence[exports.Row],
    completed: Collection[str],
    positions: Sequence[exports.Row],
    position_digests: Digests,
    finals: Iterable[PortfolioSnapshot],
) -> CompletedPart:
    """The part of every row of ``family_returns`` (``returns``) and every completed cohort's
    positions, as written now."""
    mine = [r for r in returns if r["cohort_id"] in completed]
    pieces = exports.row_pieces(RETURNS, mine)
    ends = [p["closes_at"] for p in positions if p["closes_at"] and p["closes_at"] > now]
    return CompletedPart(
        min(ends, default=None),
        tuple(
            (r["family_id"], r["cohort_id"], line, item)
            for r, (line, item) in zip(mine, pieces, strict=True)
        ),
        position_digests,
        max((s.taken_at for s in finals), default=None),
        tuple(parsed(pieces)),
    )


def parsed(pieces: Sequence[exports.Piece]) -> list[CohortRecord]:
    """The records of rows of ``family_returns`` as ``boards.read_inputs`` reads the
    published table: its CSV of these rows, parsed by the same code."""
    csv, _ = exports.assembled(RETURNS, pieces)
    return dataset.cohort_records(dataset.parse_table(RETURNS, csv, dataset.RETURN_COLUMNS))


class LiveReturns:
    """The live cohorts' rows of ``family_returns``, formatted once for both the table's
    files and its records."""

    def __init__(self, part: CompletedPart, rows: Sequence[exports.Row]) -> None:
        self._part = part
        self._rows = rows
        self._pieces: list[exports.Piece] | None = None

    @property
    def pieces(self) -> list[exports.Piece]:
        if self._pieces is None:
            self._pieces = exports.row_pieces(RETURNS, self._rows)
        return self._pieces

    def bodies(self) -> tuple[bytes, bytes]:
        """``family_returns`` of the kept completed rows and the live ones, formatted now, in
        the table's order (by family, then cohort)."""
        pieces = {(f, c): (line, item) for f, c, line, item in self._part.returns}
        live = zip(self._rows, self.pieces, strict=True)
        pieces |= {(r["family_id"], r["cohort_id"]): p for r, p in live}
        return exports.assembled(RETURNS, [pieces[k] for k in sorted(pieces)])

    def records(self) -> list[CohortRecord]:
        """The table's records, in its order: the kept ones and the live rows' parsed now
        (what parsing the whole table gives)."""
        found = [*self._part.records, *parsed(self.pieces)]
        found.sort(key=lambda r: (r.result.family_id, r.result.cohort_id))
        return found


def newest(part: CompletedPart, live: Mapping[str, Sequence[PortfolioSnapshot]]) -> datetime | None:
    """The newest snapshot of the completed part and the live cohorts."""
    moments = [s.taken_at for found in live.values() for s in found]
    if part.as_of is not None:
        moments.append(part.as_of)
    return max(moments, default=None)
