"""The ledger in memory: each trade and settlement checked and applied under the lock, with
the same effects (cash, version, position, decision progress, open counts, aggregate) as the
DynamoDB transaction."""

from __future__ import annotations

from collections.abc import Sequence

from arena_core.domain.accounting import Execution
from arena_core.domain.aggregates import FamilyAggregate
from arena_core.domain.cohort import Agent
from arena_core.domain.portfolio import (
    BetScore,
    Position,
    PositionStatus,
    Settlement,
    Trade,
    TradeKind,
)
from arena_core.errors import VersionConflictError
from arena_core.ports.ledger_store import LedgerStore
from arena_core.scoring.aggregates import scores_aggregate
from arena_local.memory.decisions import owned
from arena_local.memory.state import MemoryState


class MemoryLedgerStore(LedgerStore):
    def __init__(self, state: MemoryState) -> None:
        self._s = state

    def get_agent(self, agent_id: str) -> Agent:
        with self._s.lock:
            return self._s.require_agent(agent_id)

    def apply_trade(self, execution: Execution, *, expected_version: int, owner: str) -> bool:
        trade, position = execution.trade, execution.position
        s = self._s
        with s.lock:
            if trade.trade_id in s.trades.get(trade.agent_id, {}):
                return False
            agent = s.require_agent(trade.agent_id)
            if agent.version != expected_version or agent.cash != trade.cash_before:
                raise VersionConflictError(f"agent {agent.agent_id} changed since it was read")
            record = owned(s, trade.decision_id, owner)
            held = s.positions.setdefault(trade.agent_id, {})
            opening = trade.kind is TradeKind.BUY and position.position_id not in held
            if opening and any(
                p.is_open and p.market_id == position.market_id and p.side == position.side
                for p in held.values()
            ):
                raise VersionConflictError(
                    f"agent {agent.agent_id} already holds {position.market_id}/{position.side}"
                )
            s.agents[agent.agent_id] = agent.model_copy(
                update={
                    "cash": execution.cash_after,
                    "version": agent.version + 1,
                    "trades": agent.trades + 1,
                }
            )
            held[position.position_id] = position
            s.trades.setdefault(trade.agent_id, {})[trade.trade_id] = trade
            s.decisions[record.decision_id] = record.model_copy(
                update={"trades_applied": record.trades_applied + 1}
            )
            s.count_open(position.market_id, +1 if opening else 0)
            if position.status is PositionStatus.CLOSED:
                s.count_open(position.market_id, -1)
            s.add_to_aggregate(FamilyAggregate(family_id=agent.family_id, trades=1))
            return True

    def get_trade(self, agent_id: str, trade_id: str) -> Trade | None:
        with self._s.lock:
            return self._s.trades.get(agent_id, {}).get(trade_id)

    def trades(self, agent_id: str) -> list[Trade]:
        with self._s.lock:
            return sorted(self._s.trades.get(agent_id, {}).values(), key=lambda t: t.trade_id)

    def positions(self, agent_id: str) -> list[Position]:
        with self._s.lock:
            held = self._s.positions.get(agent_id, {})
            return sorted(held.values(), key=lambda p: p.position_id)

    def open_positions_on(self, market_id: str) -> list[Position]:
        return [p for p in self.positions_on(market_id) if p.is_open]

    def positions_on(self, market_id: str) -> list[Position]:
        with self._s.lock:
            found = [
                p
                for held in self._s.positions.values()
                for p in held.values()
                if p.market_id == market_id
            ]
        return sorted(found, key=lambda p: (p.agent_id, p.position_id))

    def apply_settlement(
        self, position: Position, settlement: Settlement, *, family_id: str, expected_version: int
    ) -> bool:
        s = self._s
        with s.lock:
            done = s.settlements.setdefault(settlement.agent_id, {})
            if settlement.settlement_id in done:
                return False
            agent = s.require_agent(settlement.agent_id)
            if agent.version != expected_version:
                raise VersionConflictError(f"agent {agent.agent_id} changed since it was read")
            s.agents[agent.agent_id] = agent.model_copy(
                update={"cash": agent.cash + settlement.payout, "version": agent.version + 1}
            )
            s.positions.setdefault(position.agent_id, {})[position.position_id] = position
            done[settlement.settlement_id] = settlement
            s.count_open(settlement.market_id, -1)
            s.add_to_aggregate(FamilyAggregate(family_id=family_id, settled_positions=1))
            return True

    def apply_scores(self, agent_id: str, scores: Sequence[BetScore], *, family_id: str) -> int:
        s = self._s
        with s.lock:
            held = s.scores.setdefault(agent_id, {})
            new = [score for score in scores if score.trade_id not in held]
            if not new:
                return 0
            for score in new:
                held[score.trade_id] = score
            agent = s.require_agent(agent_id)
            s.agents[agent_id] = agent.model_copy(update={"version": agent.version + 1})
            s.add_to_aggregate(scores_aggregate(family_id, new))
            return len(new)

    def settlements(self, agent_id: str) -> list[Settlement]:
        with self._s.lock:
            done = self._s.settlements.get(agent_id, {})
            return sorted(done.values(), key=lambda s: s.settlement_id)

    def bet_scores(self, agent_id: str) -> list[BetScore]:
        with self._s.lock:
            return sorted(self._s.scores.get(agent_id, {}).values(), key=lambda s: s.trade_id)
