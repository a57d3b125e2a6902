"""The live cohorts' figures as one small JSON file per cohort (``data/live/<cohort_id>.json``),
which the site's own script reads to update the cohort's and its agents' pages in place.

Re-uploading every live cohort's pages every half hour would cost more than the rest of the
site (eleven pages per cohort, five cohorts, 1,461 windows a month); the pages are redrawn daily
(and after each decision run) and keep their last published figures without script, while one
file per cohort carries what moves in between: each agent's cash, values, P/L, return and
Brier, each position's status, shares, price and value. Every value is the text the pages print
(the same filters), keyed as the page's ``data-live`` attributes name it, so the script only
swaps text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime

from arena_core.domain import accounting
from arena_core.domain.cohort import Cohort
from arena_core.domain.market import Market
from arena_core.domain.portfolio import PortfolioSnapshot, Position
from arena_core.site.environment import environment

LIVE_PATH = "data/live/{cohort_id}.json"


def live_path(cohort_id: str) -> str:
    return LIVE_PATH.format(cohort_id=cohort_id)


def live_values(
    latest: Mapping[str, PortfolioSnapshot],
    positions: Mapping[str, Sequence[Position]],
    markets: Mapping[str, Market],
) -> dict[str, str]:
    """``<agent_id>/<figure>`` and ``<position_id>/<figure>`` → the text a page shows."""
    f = environment().filters
    values: dict[str, str] = {}
    for agent_id, snapshot in latest.items():
        values |= {
            f"{agent_id}/cash": f["money"](snapshot.cash),
            f"{agent_id}/positions_value": f["money"](snapshot.positions_value),
            f"{agent_id}/total_value": f["money"](snapshot.total_value),
            f"{agent_id}/total_pnl": f["signed"](snapshot.total_pnl),
            f"{agent_id}/total_pnl_pct": f["pct"](snapshot.total_pnl_pct),
            f"{agent_id}/brier": f["prob"](snapshot.brier),
            f"{agent_id}/trades": str(snapshot.trades),
        }
    for held in positions.values():
        for position in held:
            price = value = None
            if position.is_open:
                mark = accounting.mark(position, markets.get(position.market_id))
                price, value = mark.price, mark.value
            key = position.position_id
            values |= {
                f"{key}/status": position.status.value,
                f"{key}/shares": f["num"](position.shares),
                f"{key}/price": f["prob"](price),
                f"{key}/value": f["money"](value),
                f"{key}/realized_pnl": f["signed"](position.realized_pnl),
            }
    return values


def live_file(cohort: Cohort, values: Mapping[str, str], as_of: datetime | None) -> bytes:
    moment = environment().filters["when"](as_of)
    # ``at``: the time in ISO 8601, which the page's script compares with its own (a cached
    # file older than the page is not applied).
    at = as_of.isoformat() if as_of else None
    body = {"cohort_id": cohort.cohort_id, "as_of": moment, "at": at, "values": dict(values)}
    return json.dumps(body, sort_keys=True, indent=0).encode()
