"""The completed cohorts' part of the returns tables, kept between publications.

Every family's row of ``family_returns`` and every completed cohort's positions
(``position_returns``) grow with history, while between two publications only the live
cohorts' rows move: a completed cohort's row is its final snapshot, and its positions are
settled. Formatting a year of those rows, and reading the final snapshots and positions they
come from, every ten minutes was most of what grew in a tick. The site therefore keeps, per
methodology, what the completed cohorts contribute as it was written: each completed row's CSV
line and JSON item, the digests of ``position_returns``, and the newest final snapshot's time.
A tick formats only the live cohorts' rows and assembles the table around the kept ones
(``exports.assembled``: the same bytes as formatting every row).

The part is kept under ``completed_key`` (the code, the methodology, its completed cohorts and
families) until the first position held by a completed cohort reaches its scheduled end: then
the ``matured`` column of its row changes, and the part is computed again from every row.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from arena_core.code import code_digest
from arena_core.domain.portfolio import PortfolioSnapshot
from arena_core.site import exports
from arena_core.site.table_memo import Digests, kept_digests

RETURNS = "family_returns"


def completed_key(methodology: str, completed: Iterable[str], families: Iterable[str]) -> str:
    """What the completed part is computed from, but time."""
    digest = hashlib.sha256(f"{code_digest()}\0{methodology}\0".encode())
    for name in (*sorted(completed), "\0", *sorted(families)):
        digest.update(f"{name}\0".encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class CompletedPart:
    """What a methodology's completed cohorts contribute to the returns tables."""

    key: str
    until: datetime | None  # when the first of their positions not ended by then ends
    returns: tuple[tuple[str, str, str, str], ...]  # (family, cohort, CSV line, JSON item)
    positions: Digests  # of position_returns (the completed cohorts' positions only)
    as_of: datetime | None  # the newest of their final snapshots

    def holds(self, key: str, now: datetime) -> bool:
        return self.key == key and (self.until is None or now < self.until)

    def dump(self) -> str:
        return json.dumps(
            {
                "until": self.until.isoformat() if self.until else None,
                "returns": [list(r) for r in self.returns],
                "positions": list(self.positions),
                "as_of": self.as_of.isoformat() if self.as_of else None,
            },
            separators=(",", ":"),
        )

    @classmethod
    def load(cls, key: str, text: str) -> CompletedPart | None:
        """The part kept as ``text`` under ``key``, or None when it cannot be read (then it is
        computed again, as without it)."""
        try:
            found = json.loads(text)
            returns = tuple(_four(r) for r in found["returns"])
            positions = kept_digests(" ".join(map(str, found["positions"])))
            if positions is None:
                return None
            return cls(key, _moment(found["until"]), returns, positions, _moment(found["as_of"]))
        except (ValueError, KeyError, TypeError):
            return None  # unreadable: computed again


def _four(row: Sequence[object]) -> tuple[str, str, str, str]:
    family, cohort, line, item = row
    if not all(isinstance(v, str) for v in (family, cohort, line, item)):
        raise TypeError("a kept row is not four texts")
    return str(family), str(cohort), str(line), str(item)


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
    key: str,
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
        key,
        min(ends, default=None),
        tuple(
            (r["family_id"], r["cohort_id"], line, item)
            for r, (line, item) in zip(mine, pieces, strict=True)
        ),
        position_digests,
        max((s.taken_at for s in finals), default=None),
    )


def assembled_returns(part: CompletedPart, live: Sequence[exports.Row]) -> tuple[bytes, bytes]:
    """``family_returns`` of the kept completed rows and the live ``rows``, formatted now, in
    the table's order (by family, then cohort)."""
    pieces = {(f, c): (line, item) for f, c, line, item in part.returns}
    fresh = exports.row_pieces(RETURNS, live)
    pieces |= {(r["family_id"], r["cohort_id"]): p for r, p in zip(live, fresh, strict=True)}
    return exports.assembled(RETURNS, [pieces[k] for k in sorted(pieces)])


def newest(part: CompletedPart, live: Mapping[str, Sequence[PortfolioSnapshot]]) -> datetime | None:
    """The newest snapshot of the completed part and the live cohorts."""
    moments = [s.taken_at for found in live.values() for s in found]
    if part.as_of is not None:
        moments.append(part.as_of)
    return max(moments, default=None)
