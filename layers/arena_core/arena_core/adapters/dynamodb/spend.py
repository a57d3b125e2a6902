"""The weekly LLM spend on DynamoDB: one item per run week, added to atomically (ADD)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from arena_core.adapters.dynamodb import schema as k
from arena_core.adapters.dynamodb.codec import from_attributes
from arena_core.adapters.dynamodb.table import Expr, Table
from arena_core.ports.spend_store import SpendStore

SPEND = "LLM_SPEND"


def _key(week: date) -> dict[str, str]:
    return k.key(SPEND, f"WEEK#{week.isoformat()}")


class DynamoSpendStore(SpendStore):
    def __init__(self, table: Table) -> None:
        self.table = table

    def spent(self, week: date) -> Decimal:
        item = self.table.get(_key(week))
        return Decimal(str(from_attributes(item).get("dollars", 0))) if item else Decimal(0)

    def add(self, week: date, dollars: Decimal) -> None:
        expr = Expr()
        update = (
            f"ADD {expr.n('dollars')} {expr.v(dollars)} SET {expr.n('entity')} = {expr.v('spend')}"
        )
        self.table.update(_key(week), update, expr)
