"""Trades, positions, settlements and bet scores on DynamoDB: one transaction per change.

Every change to an agent's cash is a transaction whose version check serializes the whole
portfolio; trade and settlement records are written with ``attribute_not_exists``, which makes a
replay a no-op; an open-position guard item enforces one open position per market and side; and
the market's open-position count moves in the same transaction, so "resolved only after every
position settled" is a condition on that count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from arena_core.adapters.dynamodb import schema as k
from arena_core.adapters.dynamodb.codec import decode, encode, to_attributes
from arena_core.adapters.dynamodb.counters import score_increments
from arena_core.adapters.dynamodb.table import Expr, Table, TransactionCancelled
from arena_core.domain.accounting import Execution
from arena_core.domain.cohort import Agent
from arena_core.domain.decisions import DecisionStatus
from arena_core.domain.holdings import AgentHoldings
from arena_core.domain.portfolio import (
    BetScore,
    Position,
    PositionStatus,
    Settlement,
    Trade,
    TradeKind,
)
from arena_core.errors import (
    ClaimLostError,
    NotFoundError,
    PersistenceError,
    VersionConflictError,
)
from arena_core.ports.ledger_store import LedgerStore

SCORES_PER_TRANSACTION = 90  # plus the aggregate and the agent: within the 100-item limit
MAX_SCORE_ROUNDS = 50


class DynamoLedgerStore(LedgerStore):
    def __init__(self, table: Table) -> None:
        self.table = table
        self._holdings: dict[str, AgentHoldings] = {}  # by agent id; see _holdings_at()

    def get_agent(self, agent_id: str) -> Agent:
        item = self.table.get(k.agent_key(agent_id))
        if item is None:
            raise NotFoundError(f"no agent {agent_id}")
        return decode(Agent, item)

    # --- trades -----------------------------------------------------------------------------

    def apply_trade(self, execution: Execution, *, expected_version: int, owner: str) -> bool:
        trade, position = execution.trade, execution.position
        opening = trade.kind is TradeKind.BUY and position.opened_by == trade.trade_id
        closing = position.status is PositionStatus.CLOSED
        operations = [
            (
                "trade",
                _put_new(encode(trade, "trade", k.trade_key(trade.agent_id, trade.trade_id))),
            ),
            ("decision", _progress_operation(trade, owner)),
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

    def get_trade(self, agent_id: str, trade_id: str) -> Trade | None:
        item = self.table.get(k.trade_key(agent_id, trade_id))
        return None if item is None else decode(Trade, item)

    def trades(self, agent_id: str) -> list[Trade]:
        return [decode(Trade, i) for i in self._agent_items(agent_id, k.TRADE)]

    def positions(self, agent_id: str) -> list[Position]:
        return [decode(Position, i) for i in self._agent_items(agent_id, k.POSITION)]

    def open_positions_on(self, market_id: str) -> list[Position]:
        items = self.table.index_partition(k.GSI1, k.GSI1PK, k.open_position_index(market_id))
        found = [decode(Position, i) for i in items]
        return sorted((p for p in found if p.is_open), key=lambda p: (p.agent_id, p.position_id))

    def positions_on(self, market_id: str) -> list[Position]:
        items = self.table.index_partition(k.GSI2, k.GSI2PK, k.market_position_index(market_id))
        found = [decode(Position, i) for i in items]
        return sorted(found, key=lambda p: (p.agent_id, p.position_id))

    def _agent_items(self, agent_id: str, prefix: str) -> list[dict[str, Any]]:
        return list(self.table.partition(k.agent_pk(agent_id), prefix))

    # --- settlements ------------------------------------------------------------------------

    def apply_settlement(
        self, position: Position, settlement: Settlement, *, family_id: str, expected_version: int
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
        operations = [
            ("settlement", _put_new(_settlement_item(settlement))),
            ("agent", agent_update),
            ("position", {"Put": {"Item": position_item(position)}}),
            ("guard", {"Delete": {"Key": _guard_key(position)}}),
            ("market", _open_count_update(position.market_id, -1)),
            ("aggregate", _aggregate_update(family_id, {"settled_positions": 1})),
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

    def apply_scores(self, agent_id: str, scores: Sequence[BetScore], *, family_id: str) -> int:
        """Each batch is one transaction: the new score items (each "not exists"), their sum
        added to the family aggregate, the agent's version moved. A batch that lost a race to
        another writer of the same scores is read again and written without them."""
        written = 0
        for _ in range(MAX_SCORE_ROUNDS):
            missing = self._unscored(agent_id, scores)
            if not missing:
                return written
            batch = missing[:SCORES_PER_TRANSACTION]
            operations = [
                *((f"score-{s.trade_id}", _put_new(_score_item(s))) for s in batch),
                ("aggregate", _aggregate_update(family_id, score_increments(batch))),
                ("agent", _version_bump(agent_id)),
            ]
            try:
                self.table.transact(operations)
            except TransactionCancelled as exc:
                if any(exc.failed(f"score-{s.trade_id}") for s in batch):
                    continue  # another run recorded some of them: read again
                raise PersistenceError(f"bet scores of {agent_id}: {exc.reasons}") from exc
            written += len(batch)
        raise VersionConflictError(f"agent {agent_id}: recording bet scores kept conflicting")

    def _unscored(self, agent_id: str, scores: Sequence[BetScore]) -> list[BetScore]:
        keys = [k.score_key(agent_id, s.trade_id) for s in scores]
        present = {item[k.SK]["S"] for item in self.table.batch_get(keys)}
        return [s for s, key in zip(scores, keys, strict=True) if key[k.SK] not in present]

    def settlements(self, agent_id: str) -> list[Settlement]:
        return [decode(Settlement, i) for i in self._agent_items(agent_id, k.SETTLEMENT)]

    def bet_scores(self, agent_id: str) -> list[BetScore]:
        return [decode(BetScore, i) for i in self._agent_items(agent_id, k.SCORE)]

    # --- holdings ---------------------------------------------------------------------------

    def holdings(self, agent_id: str) -> AgentHoldings:
        return self._holdings_at(self.get_agent(agent_id))

    def holdings_of(self, agent_ids: Sequence[str]) -> dict[str, AgentHoldings]:
        """Profiles in one BatchGetItem, then ``holdings`` per agent without its GetItem."""
        items = self.table.batch_get([k.agent_key(a) for a in agent_ids])
        agents = {a.agent_id: a for a in (decode(Agent, i) for i in items)}
        missing = [a for a in agent_ids if a not in agents]
        if missing:
            raise NotFoundError(f"no agent {missing[0]}")
        return {agent_id: self._holdings_at(agents[agent_id]) for agent_id in agent_ids}

    def _holdings_at(self, agent: Agent) -> AgentHoldings:
        """The agent's positions and bet scores, from this process's cache while the profile's
        version (read just before) is unchanged, since every trade and settlement bumps it in
        the same transaction; otherwise one range query: sort keys ``POSITION#…``, ``PROFILE``
        and ``SCORE#…`` are adjacent."""
        agent_id = agent.agent_id
        cached = self._holdings.get(agent_id)
        if cached is not None and cached.agent.version == agent.version:
            return AgentHoldings(agent, cached.positions, cached.scores)
        kinds = partition_by_kind(
            self.table.partition(k.agent_pk(agent_id), between=(k.HOLDINGS_FIRST, k.HOLDINGS_LAST))
        )
        profile = kinds.get(k.PROFILE)
        if not profile:
            raise NotFoundError(f"no agent {agent_id}")
        found = AgentHoldings(
            agent=decode(Agent, profile[0]),
            positions=[decode(Position, i) for i in kinds.get(k.POSITION, [])],
            scores=[decode(BetScore, i) for i in kinds.get(k.SCORE, [])],
        )
        # A query is not isolated from a transaction committing meanwhile: cache only what
        # was read between two identical versions, so a torn read is never kept.
        if found.agent.version == agent.version:
            self._holdings[agent_id] = found
        return found


def partition_by_kind(items: Any) -> dict[str, list[dict[str, Any]]]:
    """The items of one partition grouped by what they are (their sort key's prefix)."""
    kinds: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        kinds.setdefault(k.sort_kind(item[k.SK]["S"]), []).append(item)
    return kinds


def _progress_operation(trade: Trade, owner: str) -> dict[str, Any]:
    expr = Expr()
    return {
        "Update": {
            "Key": k.decision_key(trade.agent_id, trade.decision_id),
            "UpdateExpression": f"ADD {expr.n('trades_applied')} {expr.v(1)}",
            "ConditionExpression": (
                f"{expr.n('owner')} = {expr.v(owner)} "
                f"AND {expr.n('status')} = {expr.v(DecisionStatus.CLAIMED)}"
            ),
            **expr.kwargs(),
        }
    }


def _guard_key(position: Position) -> dict[str, str]:
    return k.open_guard_key(position.agent_id, position.market_id, position.side)


def _settlement_item(settlement: Settlement) -> dict[str, Any]:
    keys = k.settlement_key(settlement.agent_id, settlement.settlement_id)
    return encode(settlement, "settlement", keys)


def _score_item(score: BetScore) -> dict[str, Any]:
    index = {k.GSI2PK: k.family_scores_index(score.family_id), k.GSI2SK: score.trade_id}
    return encode(score, "score", k.score_key(score.agent_id, score.trade_id), **index)


def _put_new(item: dict[str, Any]) -> dict[str, Any]:
    return {"Put": {"Item": item, "ConditionExpression": "attribute_not_exists(PK)"}}


def position_item(position: Position) -> dict[str, Any]:
    """A position, findable by its market on GSI2 whatever its status (``positions_on``), and
    on GSI1 while it is open (sparse: the markets to resolve)."""
    index: dict[str, str] = {
        k.GSI2PK: k.market_position_index(position.market_id),
        k.GSI2SK: f"{position.agent_id}#{position.position_id}",
    }
    if position.is_open:
        index |= {
            k.GSI1PK: k.open_position_index(position.market_id),
            k.GSI1SK: f"{position.agent_id}#{position.position_id}",
        }
    return encode(
        position, "position", k.position_key(position.agent_id, position.position_id), **index
    )


def _version_bump(agent_id: str) -> dict[str, Any]:
    """The agent changed (new bet scores): its version moves, without touching its cash."""
    expr = Expr()
    update = f"ADD {expr.n('version')} {expr.v(1)}"
    return {"Update": {"Key": k.agent_key(agent_id), "UpdateExpression": update, **expr.kwargs()}}


def _cash_update(agent_id: str, version: int, before: Decimal, after: Decimal) -> dict[str, Any]:
    """Set the new cash if the agent is unchanged (version and cash) and the result is not
    negative: ``cash >= spend`` is written out even though the domain already checked it."""
    expr = Expr()
    spend = max(before - after, Decimal(0))
    condition = (
        f"{expr.n('version')} = {expr.v(version)} AND {expr.n('cash')} = {expr.v(before)} "
        f"AND {expr.n('cash')} >= {expr.v(spend)}"
    )
    return {
        "Update": {
            "Key": k.agent_key(agent_id),
            "UpdateExpression": (
                f"SET {expr.assignments({'cash': after, 'version': version + 1})} "
                f"ADD {expr.n('trades')} {expr.v(1)}"
            ),
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


def _aggregate_update(family_id: str, increments: Mapping[str, int]) -> dict[str, Any]:
    expr = Expr()
    adds = ", ".join(f"{expr.n(name)} {expr.v(amount)}" for name, amount in increments.items())
    update = f"ADD {adds} SET {expr.n('family_id')} = {expr.v(family_id)}"
    return {
        "Update": {"Key": k.aggregate_key(family_id), "UpdateExpression": update, **expr.kwargs()}
    }
