"""Trades, positions, settlements and bet scores on DynamoDB: one transaction per change.

Every change to an agent's cash is a transaction whose version check serializes the whole
portfolio; trade and settlement records are written with ``attribute_not_exists``, which makes a
replay a no-op; an open-position guard item enforces one open position per market and side; and
the market's open-position count moves in the same transaction, so "resolved only after every
position settled" is a condition on that count.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena_core.adapters.dynamodb import schema as k
from arena_core.adapters.dynamodb.codec import decode, encode, to_attributes
from arena_core.adapters.dynamodb.decisions import DecisionStore
from arena_core.adapters.dynamodb.table import Expr, TransactionCancelled
from arena_core.domain.accounting import Execution
from arena_core.domain.cohort import Agent
from arena_core.domain.portfolio import (
    BetScore,
    Position,
    PositionStatus,
    Settlement,
    Trade,
    TradeKind,
)
from arena_core.errors import ClaimLostError, PersistenceError, VersionConflictError
from arena_core.ports.repository import score_sums


class LedgerStore(DecisionStore):
    def apply_trade(self, execution: Execution, *, expected_version: int, owner: str) -> bool:
        trade, position = execution.trade, execution.position
        opening = trade.kind is TradeKind.BUY and position.opened_by == trade.trade_id
        closing = position.status is PositionStatus.CLOSED
        operations = [
            (
                "trade",
                _put_new(encode(trade, "trade", k.trade_key(trade.agent_id, trade.trade_id))),
            ),
            ("decision", self._progress_operation(trade, owner)),
            (
                "agent",
                _cash_update(
                    trade.agent_id, expected_version, trade.cash_before, execution.cash_after
                ),
            ),
            ("position", {"Put": {"Item": position_item(position)}}),
            ("aggregate", _aggregate_update(Agent.family_of(trade.agent_id), {"trades": 1})),
        ]
        guard = _guard_key(position)
        if opening:
            guard_item = to_attributes(
                {**guard, "entity": "open-guard", "position_id": position.position_id}
            )
            operations.append(("guard", _put_new(guard_item)))
            operations.append(("market", _open_count_update(position.market_id, +1)))
        if closing:
            operations.append(("guard", {"Delete": {"Key": guard}}))
            operations.append(("market", _open_count_update(position.market_id, -1)))
        try:
            self.table.transact(operations)
        except TransactionCancelled as exc:
            if exc.failed("trade"):
                return False
            if exc.failed("decision"):
                raise ClaimLostError(f"run {owner} no longer holds {trade.decision_id}") from exc
            if exc.failed("agent") or exc.failed("guard"):
                raise VersionConflictError(
                    f"agent {trade.agent_id} changed since it was read"
                ) from exc
            raise PersistenceError(f"trade {trade.trade_id} not applied: {exc.reasons}") from exc
        return True

    def _progress_operation(self, trade: Trade, owner: str) -> dict[str, Any]:
        expr = Expr()
        return {
            "Update": {
                "Key": k.decision_key(trade.agent_id, trade.decision_id),
                "UpdateExpression": f"ADD {expr.n('trades_applied')} {expr.v(1)}",
                "ConditionExpression": (
                    f"{expr.n('owner')} = {expr.v(owner)} "
                    f"AND {expr.n('status')} = {expr.v('claimed')}"
                ),
                **expr.kwargs(),
            }
        }

    def get_trade(self, agent_id: str, trade_id: str) -> Trade | None:
        item = self.table.get(k.trade_key(agent_id, trade_id))
        return None if item is None else decode(Trade, item)

    def trades(self, agent_id: str) -> list[Trade]:
        return [decode(Trade, i) for i in self._agent_items(agent_id, "TRADE#")]

    def positions(self, agent_id: str) -> list[Position]:
        return [decode(Position, i) for i in self._agent_items(agent_id, "POSITION#")]

    def _agent_items(self, agent_id: str, prefix: str) -> list[dict[str, Any]]:
        return list(self.table.partition(k.agent_pk(agent_id), prefix))

    def apply_settlement(
        self,
        position: Position,
        settlement: Settlement,
        scores: Sequence[BetScore],
        *,
        family_id: str,
        expected_version: int,
    ) -> bool:
        agent_id = settlement.agent_id
        expr = Expr()
        agent_update = {
            "Update": {
                "Key": k.agent_key(agent_id),
                "UpdateExpression": (
                    f"SET {expr.n('cash')} = {expr.n('cash')} + {expr.v(settlement.payout)}, "
                    f"{expr.n('version')} = {expr.n('version')} + {expr.v(1)}"
                ),
                "ConditionExpression": f"{expr.n('version')} = {expr.v(expected_version)}",
                **expr.kwargs(),
            }
        }
        sums = {"settled_positions": 1, **score_sums(scores)}
        operations = [
            ("settlement", _put_new(_settlement_item(settlement))),
            ("agent", agent_update),
            ("position", {"Put": {"Item": position_item(position)}}),
            ("guard", {"Delete": {"Key": _guard_key(position)}}),
            ("market", _open_count_update(position.market_id, -1)),
            ("aggregate", _aggregate_update(family_id, sums)),
            *((f"score-{s.trade_id}", {"Put": {"Item": _score_item(s)}}) for s in scores),
        ]
        try:
            self.table.transact(operations)
        except TransactionCancelled as exc:
            if exc.failed("settlement"):
                return False
            if exc.failed("agent"):
                raise VersionConflictError(f"agent {agent_id} changed since it was read") from exc
            raise PersistenceError(
                f"settlement {settlement.settlement_id} failed: {exc.reasons}"
            ) from exc
        return True

    def settlements(self, agent_id: str) -> list[Settlement]:
        return [decode(Settlement, i) for i in self._agent_items(agent_id, "SETTLEMENT#")]

    def bet_scores(self, agent_id: str) -> list[BetScore]:
        return [decode(BetScore, i) for i in self._agent_items(agent_id, "SCORE#")]


def _guard_key(position: Position) -> dict[str, str]:
    return k.open_guard_key(position.agent_id, position.market_id, position.side)


def _settlement_item(settlement: Settlement) -> dict[str, Any]:
    keys = k.settlement_key(settlement.agent_id, settlement.settlement_id)
    return encode(settlement, "settlement", keys)


def _score_item(score: BetScore) -> dict[str, Any]:
    return encode(score, "score", k.score_key(score.agent_id, score.trade_id))


def _put_new(item: dict[str, Any]) -> dict[str, Any]:
    return {"Put": {"Item": item, "ConditionExpression": "attribute_not_exists(PK)"}}


def position_item(position: Position) -> dict[str, Any]:
    index: dict[str, str] = {}
    if position.is_open:  # sparse: only open positions are findable by market
        index = {
            k.GSI1PK: k.open_position_index(position.market_id),
            k.GSI1SK: f"{position.agent_id}#{position.position_id}",
        }
    return encode(
        position, "position", k.position_key(position.agent_id, position.position_id), **index
    )


def _cash_update(agent_id: str, version: int, before: Any, after: Any) -> dict[str, Any]:
    """Set the new cash if the agent is unchanged (version and cash) and the result is not
    negative: ``cash >= spend`` is written out even though the domain already checked it."""
    expr = Expr()
    spend = max(before - after, 0)
    condition = (
        f"{expr.n('version')} = {expr.v(version)} AND {expr.n('cash')} = {expr.v(before)} "
        f"AND {expr.n('cash')} >= {expr.v(spend)}"
    )
    return {
        "Update": {
            "Key": k.agent_key(agent_id),
            "UpdateExpression": f"SET {expr.assignments({'cash': after, 'version': version + 1})}",
            "ConditionExpression": condition,
            **expr.kwargs(),
        }
    }


def _open_count_update(market_id: str, delta: int) -> dict[str, Any]:
    expr = Expr()
    sets: dict[str, Any] = {"market_id": market_id}
    if delta > 0:  # joins the sparse index of markets with open positions
        sets |= {k.GSI1PK: k.OPEN_MARKETS, k.GSI1SK: market_id}
    update = f"ADD {expr.n('open_positions')} {expr.v(delta)} SET {expr.assignments(sets)}"
    return {"Update": {"Key": k.market_key(market_id), "UpdateExpression": update, **expr.kwargs()}}


def _aggregate_update(family_id: str, deltas: dict[str, Any]) -> dict[str, Any]:
    expr = Expr()
    adds = ", ".join(f"{expr.n(name)} {expr.v(amount)}" for name, amount in deltas.items())
    update = f"ADD {adds} SET {expr.n('family_id')} = {expr.v(family_id)}"
    return {
        "Update": {"Key": k.aggregate_key(family_id), "UpdateExpression": update, **expr.kwargs()}
    }
