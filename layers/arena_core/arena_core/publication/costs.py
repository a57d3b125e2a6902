"""What each family's decisions cost, as the publication's memo keeps it: between site-wide
publications (which compute it from the costs table) a tick takes it as kept."""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation

from arena_core.dataset.costs import CostSummary
from arena_core.site.costs import Spend


def dump_spend(spend: Spend) -> str:
    return json.dumps(
        [[m, f, s.decisions, s.tokens_in, s.tokens_out, str(s.cost_usd), s.weeks]
         for (m, f), s in spend.items()],
        separators=(",", ":"),
    )  # fmt: skip


def load_spend(text: str) -> Spend:
    """The kept costs (``ValueError`` when they cannot be read: computed again)."""
    try:
        found = {}
        for entry in json.loads(text):
            methodology, family, decisions, tokens_in, tokens_out, cost, weeks = entry
            counts = (decisions, tokens_in, tokens_out, weeks)
            texts = (methodology, family, cost)
            if any(type(n) is not int for n in counts) or any(type(t) is not str for t in texts):
                raise TypeError("a kept cost is not of its types")
            dollars = Decimal(cost)
            if not dollars.is_finite():
                raise ValueError("a kept cost is not finite")
            found[(methodology, family)] = CostSummary(
                decisions, tokens_in, tokens_out, dollars, weeks
            )
        return found
    except InvalidOperation as exc:
        raise ValueError("a kept cost is not a number") from exc
