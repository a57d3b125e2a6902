"""Execute a decision's trades against the repository: each trade atomically, at most once.

Trade ids are the decision id plus the instruction's index, so a replay after a crash finds
what was already applied, skips it, and applies only what is missing. Each instruction is
validated against the portfolio as it stands just before it (bets are checked in order as cash
falls); as applied trades are exactly the earlier ones, a replay reaches the same verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from arena_core.domain import accounting
from arena_core.domain.accounting import Execution, TradeContext
from arena_core.domain.cohort import Agent
from arena_core.domain.decision import BetInstruction, SellInstruction
from arena_core.domain.market import Market
from arena_core.domain.portfolio import Position, Trade
from arena_core.errors import (
    RuleViolationError,
    UnknownMarketError,
    UnknownPositionError,
    VersionConflictError,
)
from arena_core.ports.repository import Repository

MAX_CONFLICT_RETRIES = 20
Instruction = BetInstruction | SellInstruction


@dataclass(frozen=True)
class TradeOutcome:
    """What became of one instruction: executed (now or in an earlier run) or rejected."""

    index: int
    trade_id: str
    instruction: Instruction
    trade: Trade | None = None
    rejected_rule: str | None = None
    reason: str | None = None

    @property
    def executed(self) -> bool:
        return self.trade is not None


def trade_id_for(decision_id: str, index: int) -> str:
    return f"{decision_id}.t{index:02d}"


def _plan(
    ctx: TradeContext,
    agent: Agent,
    positions: Sequence[Position],
    instruction: Instruction,
    markets: Mapping[str, Market],
) -> Execution:
    if isinstance(instruction, BetInstruction):
        market = markets.get(instruction.market_id)
        if market is None:
            raise UnknownMarketError(f"market {instruction.market_id} is not in this run's list")
        side = market.canonical_side(instruction.side)
        existing = next(
            (
                p
                for p in positions
                if p.is_open and p.market_id == market.market_id and p.side == side
            ),
            None,
        )
        return accounting.buy(
            ctx,
            cash=agent.cash,
            market=market,
            side=side,
            amount=instruction.amount,
            existing=existing,
        )
    position = next((p for p in positions if p.position_id == instruction.position_id), None)
    if position is None or position.agent_id != agent.agent_id:
        raise UnknownPositionError(f"position {instruction.position_id} is not one of yours")
    market = markets.get(position.market_id)
    if market is None:
        raise UnknownMarketError(f"market {position.market_id} has no price in this run")
    return accounting.sell(
        ctx, cash=agent.cash, market=market, position=position, percentage=instruction.percentage
    )


def execute_one(
    repo: Repository,
    *,
    agent_id: str,
    decision_id: str,
    owner: str,
    index: int,
    instruction: Instruction,
    markets: Mapping[str, Market],
    at: datetime,
) -> TradeOutcome:
    trade_id = trade_id_for(decision_id, index)
    for _ in range(MAX_CONFLICT_RETRIES):
        done = repo.get_trade(agent_id, trade_id)
        if done is not None:
            return TradeOutcome(index, trade_id, instruction, trade=done)
        agent = repo.get_agent(agent_id)
        ctx = TradeContext(agent_id, agent.cohort_id, decision_id, trade_id, at)
        try:
            execution = _plan(ctx, agent, repo.positions(agent_id), instruction, markets)
        except RuleViolationError as exc:
            return TradeOutcome(
                index, trade_id, instruction, rejected_rule=exc.rule, reason=str(exc)
            )
        try:
            repo.apply_trade(execution, expected_version=agent.version, owner=owner)
        except VersionConflictError:
            continue  # someone else moved the portfolio (a settlement): read again and re-plan
        return TradeOutcome(index, trade_id, instruction, trade=execution.trade)
    raise VersionConflictError(f"agent {agent_id}: trade {trade_id} kept conflicting")


@dataclass
class KnownState:
    """The portfolio as last read, kept current as trades apply: a fresh decision (no trade of
    it can exist yet) then costs no read per trade. Any surprise falls back to reading."""

    agent: Agent
    positions: dict[str, Position]

    def apply(self, execution: Execution) -> None:
        self.agent = self.agent.model_copy(
            update={"cash": execution.cash_after, "version": self.agent.version + 1}
        )
        self.positions[execution.position.position_id] = execution.position


def _execute_known(
    repo: Repository,
    state: KnownState,
    *,
    decision_id: str,
    owner: str,
    index: int,
    instruction: Instruction,
    markets: Mapping[str, Market],
    at: datetime,
) -> TradeOutcome | None:
    """Plan and apply from the known state; None when it turned out stale (read again)."""
    agent = state.agent
    trade_id = trade_id_for(decision_id, index)
    ctx = TradeContext(agent.agent_id, agent.cohort_id, decision_id, trade_id, at)
    try:
        execution = _plan(ctx, agent, list(state.positions.values()), instruction, markets)
    except RuleViolationError as exc:
        return TradeOutcome(index, trade_id, instruction, rejected_rule=exc.rule, reason=str(exc))
    try:
        applied = repo.apply_trade(execution, expected_version=agent.version, owner=owner)
    except VersionConflictError:
        return None
    if not applied:
        return None
    state.apply(execution)
    return TradeOutcome(index, trade_id, instruction, trade=execution.trade)


def execute_all(
    repo: Repository,
    *,
    agent_id: str,
    decision_id: str,
    owner: str,
    instructions: Sequence[Instruction],
    markets: Mapping[str, Market],
    at: datetime,
    known: KnownState | None = None,
) -> list[TradeOutcome]:
    """Execute every instruction in order.

    Without ``known`` every trade first checks whether it was already applied and reads the
    portfolio (the replay-safe path after a crash). With ``known`` (a decision consulted just now,
    so none of its trades can exist) trades are planned from that state; a version conflict or
    an already-applied trade switches back to the replay-safe path for that trade.
    """
    outcomes = []
    for index, instruction in enumerate(instructions):
        outcome = None
        if known is not None:
            outcome = _execute_known(
                repo,
                known,
                decision_id=decision_id,
                owner=owner,
                index=index,
                instruction=instruction,
                markets=markets,
                at=at,
            )
        if outcome is None:
            outcome = execute_one(
                repo,
                agent_id=agent_id,
                decision_id=decision_id,
                owner=owner,
                index=index,
                instruction=instruction,
                markets=markets,
                at=at,
            )
            known = None  # the known state is stale: read from now on
        outcomes.append(outcome)
    return outcomes
