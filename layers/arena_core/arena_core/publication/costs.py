"""The families' costs kept between publications (``FamilyCosts``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, MutableMapping, Sequence
from decimal import Decimal, InvalidOperation

from arena_core.code import code_digest
from arena_core.dataset.costs import CostSummary, Row
from arena_core.site.costs import Spend, family_costs
from arena_core.site.views import LeaderboardData


class FamilyCosts:
    """``family_costs`` of the costs table as published, kept under its digest (and the
    leaderboards' cohorts and families) between publications: the leaderboard regenerated
    after every snapshot, which has no fresh row, reads the table only when it changed."""

    SLOT = "costs/families"

    def __init__(self, kept: MutableMapping[str, tuple[str, str]] | None) -> None:
        self._kept = kept

    def kept(self, boards: Sequence[LeaderboardData], table: str | None) -> Spend | None:
        """The costs kept for the table of digest ``table`` (None: none published)."""
        if self._kept is None or table is None:
            return None
        earlier = self._kept.get(self.SLOT)
        if earlier is None or earlier[0] != _spend_key(boards, table):
            return None
        return _load_spend(earlier[1])

    def keep(self, boards: Sequence[LeaderboardData], table: str | None, spend: Spend) -> None:
        """Keep ``spend``, the costs of the table of digest ``table``."""
        if self._kept is not None and table is not None:
            self._kept[self.SLOT] = (_spend_key(boards, table), _dump_spend(spend))

    def of(
        self, boards: Sequence[LeaderboardData], table: str | None, rows: Callable[[], list[Row]]
    ) -> Spend:
        """The costs of the table of digest ``table`` (``rows``: its rows): as kept, else
        computed (then kept)."""
        found = self.kept(boards, table)
        if found is None:
            found = family_costs(boards, rows())
            self.keep(boards, table, found)
        return found


def _spend_key(boards: Sequence[LeaderboardData], published: str) -> str:
    digest = hashlib.sha256(f"{code_digest()}\0{published}\0".encode())
    for board in boards:
        cohorts = sorted(c.cohort_id for c in board.cohorts)
        families = sorted(v.spec.family_id for v in board.families)
        digest.update(repr((board.methodology, cohorts, families)).encode())
    return digest.hexdigest()


def _dump_spend(spend: Spend) -> str:
    return json.dumps(
        [[m, f, s.decisions, s.tokens_in, s.tokens_out, str(s.cost_usd), s.weeks]
         for (m, f), s in spend.items()],
        separators=(",", ":"),
    )  # fmt: skip


def _load_spend(text: str) -> Spend | None:
    """The kept costs, or None when they cannot be read (computed again)."""
    try:
        found = {}
        for entry in json.loads(text):
            methodology, family, decisions, tokens_in, tokens_out, cost, weeks = entry
            counts = (decisions, tokens_in, tokens_out, weeks)
            texts = (methodology, family, cost)
            if any(type(n) is not int for n in counts) or any(type(t) is not str for t in texts):
                return None
            dollars = Decimal(cost)
            if not dollars.is_finite():
                return None
            found[(methodology, family)] = CostSummary(
                decisions, tokens_in, tokens_out, dollars, weeks
            )
        return found
    except (ValueError, TypeError, InvalidOperation):
        return None
