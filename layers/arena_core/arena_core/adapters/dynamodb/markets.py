"""Market state on DynamoDB: the latest known market (as JSON: recorded prices can exceed
DynamoDB's 38 digits), its count of open positions, which trades and settlements move, and its
membership of the markets to resolve, from its first position until it is marked resolved; its
prices at each weekly capture (an item per market and capture) and at each hour's mark (one
item an hour for every held market)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from arena_core.adapters.dynamodb import schema as k
from arena_core.adapters.dynamodb.codec import from_attributes, to_attributes
from arena_core.adapters.dynamodb.table import ConditionFailed, Expr, Table
from arena_core.domain.market import Market
from arena_core.domain.market_record import (
    Capture,
    HourlyMarks,
    MarketObservation,
    MarketRecord,
)
from arena_core.ports.market_store import MarketStore

HISTORY = "observations"  # the market's observed states: a list of JSON texts


class DynamoMarketStore(MarketStore):
    def __init__(self, table: Table) -> None:
        self.table = table

    def save_markets(self, markets: Sequence[Market]) -> None:
        for market in markets:
            expr = Expr()
            update = (
                f"SET {expr.n('market')} = {expr.v(market.model_dump_json())}, "
                f"{expr.n('market_id')} = {expr.v(market.market_id)}, "
                f"{expr.n('entity')} = {expr.v('market')}"
            )
            self.table.update(k.market_key(market.market_id), update, expr)

    def get_markets(self, market_ids: Sequence[str]) -> dict[str, Market]:
        return {i: r.market for i, r in self.market_records(market_ids).items()}

    def market_records(self, market_ids: Sequence[str]) -> dict[str, MarketRecord]:
        items = self.table.batch_get([k.market_key(i) for i in dict.fromkeys(market_ids)])
        found = {}
        for item in items:
            fields = from_attributes(item)
            if "market" not in fields:
                continue
            market = Market.model_validate_json(fields["market"])
            history = fields.get(HISTORY) or []
            found[market.market_id] = MarketRecord(
                market=market,
                resolved_at=fields.get("resolved_at"),
                observations=tuple(MarketObservation.model_validate_json(o) for o in history),
            )
        return found

    def record_observations(self, observations: Sequence[MarketObservation]) -> None:
        """Appended in place (list_append, no read): two passes observing at once both land."""
        by_market: dict[str, list[str]] = {}
        for seen in observations:
            by_market.setdefault(seen.market_id, []).append(seen.model_dump_json())
        for market_id, entries in by_market.items():
            expr = Expr()
            history = expr.n(HISTORY)
            update = (
                f"SET {history} = list_append(if_not_exists({history}, {expr.v([])}), "
                f"{expr.v(entries)})"
            )
            self.table.update(k.market_key(market_id), update, expr)

    def markets_to_resolve(self) -> list[str]:
        """The sparse index the first position on a market joins and its resolution leaves."""
        items = self.table.index_partition(k.GSI1, k.GSI1PK, k.OPEN_MARKETS)
        return sorted(str(from_attributes(item)["market_id"]) for item in items)

    def mark_market_resolved(self, market: Market, at: datetime) -> bool:
        expr = Expr()
        count = expr.n("open_positions")
        resolved = {
            "resolved_at": at,
            "market": market.model_dump_json(),
            "market_id": market.market_id,
        }
        update = f"SET {expr.assignments(resolved)} REMOVE {expr.n(k.GSI1PK)}, {expr.n(k.GSI1SK)}"
        condition = (
            f"(attribute_not_exists({count}) OR {count} <= {expr.v(0)}) "
            f"AND attribute_not_exists({expr.n('resolved_at')})"
        )
        try:
            self.table.update(k.market_key(market.market_id), update, expr, condition=condition)
        except ConditionFailed:
            return False
        return True

    def record_captures(self, captures: Sequence[Capture]) -> None:
        items = [
            to_attributes(
                {
                    **k.capture_key(c.market_id, c.at),
                    "entity": "capture",
                    "capture": c.model_dump_json(),
                }
            )
            for c in captures
        ]
        self.table.batch_put(items)

    def captures(self, market_id: str) -> list[Capture]:
        items = self.table.partition(f"{k.MARKET_CAPTURES}{market_id}", "")
        return [Capture.model_validate_json(from_attributes(i)["capture"]) for i in items]

    def record_marks(self, marks: HourlyMarks) -> None:
        """One PutItem: the prices as compact JSON text by market id (recorded prices can
        exceed DynamoDB's 38 digits; a sheet of a hundred markets stays under 2 KB)."""
        if not marks.prices:
            return
        prices = json.dumps(
            {market_id: str(price) for market_id, price in marks.prices.items()},
            separators=(",", ":"),
        )
        item = {**k.marks_key(marks.hour), "entity": "marks", "prices": prices}
        self.table.put(to_attributes(item))

    def marks(self, start: datetime, end: datetime) -> list[HourlyMarks]:
        """One Query of the hours' partition, eventually consistent (a sheet is written by its
        hour's first pass, at least minutes before a publication reads it)."""
        items = self.table.partition(
            k.MARKS, between=(k.stamp(start), k.stamp(end)), consistent=False
        )
        return [
            HourlyMarks(hour=k.parse_stamp(fields[k.SK]), prices=json.loads(fields["prices"]))
            for fields in map(from_attributes, items)
        ]
