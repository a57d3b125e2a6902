"""Execute an answer's trades against the ledger: each trade atomically, at most once.

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
from arena_core.domain.answer import BetInstruction, SellInstruction
from arena_core.domain.cohort import Agent
from arena_core.domain.market import Market
from arena_core.domain.portfolio import Position, Trade
from arena_core.errors import (
    RuleViolationError,
    UnknownMarketError,
    UnknownPositionError,
    VersionConflictError,
)
from arena_core.ports.ledger_store import LedgerStore
from arena_core.services.conflicts import until_no_conflict

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


@dataclass(frozen=True)
class TradeRun:
    """Where a decision's trades go: whose, which decision, under which claim, at what time."""

    agent_id: str
    decision_id: str
    owner: str
    markets: Mapping[str, Market]
    at: datetime


REASON_CHARS = 200  # a rejection's reason, as recorded


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


def _rejected(
    index: int, trade_id: str, instruction: Instruction, exc: RuleViolationError
) -> TradeOutcome:
    reason = str(exc)  # it may quote what the model wrote: bounded like everything stored
    cut = reason if len(reason) <= REASON_CHARS else reason[:REASON_CHARS] + "…"
    return TradeOutcome(index, trade_id, instruction, rejected_rule=exc.rule, reason=cut)


def execute_one(
    ledger: LedgerStore, run: TradeRun, index: int, instruction: Instruction
) -> TradeOutcome:
    """The replay-safe path: find the trade if already applied, else read, plan and apply."""
    trade_id = trade_id_for(run.decision_id, index)

    def attempt() -> TradeOutcome:
        done = ledger.get_trade(run.agent_id, trade_id)
        if done is not None:
            return TradeOutcome(index, trade_id, instruction, trade=done)
        agent = ledger.get_agent(run.agent_id)
        ctx = TradeContext(run.agent_id, agent.cohort_id, run.decision_id, trade_id, run.at)
        try:
            execution = _plan(ctx, agent, ledger.positions(run.agent_id), instruction, run.markets)
        except RuleViolationError as exc:
            return _rejected(index, trade_id, instruction, exc)
        # A conflict (someone else moved the portfolio: a settlement) reads again and re-plans.
        ledger.apply_trade(execution, expected_version=agent.version, owner=run.owner)
        return TradeOutcome(index, trade_id, instruction, trade=execution.trade)

    return until_no_conflict(attempt, what=f"agent {run.agent_id}: trade {trade_id}")


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
    ledger: LedgerStore, state: KnownState, run: TradeRun, index: int, instruction: Instruction
) -> TradeOutcome | None:
    """Plan and apply from the known state; None when it turned out stale (read again)."""
    agent = state.agent
    trade_id = trade_id_for(run.decision_id, index)
    ctx = TradeContext(agent.agent_id, agent.cohort_id, run.decision_id, trade_id, run.at)
    try:
        execution = _plan(ctx, agent, list(state.positions.values()), instruction, run.markets)
    except RuleViolationError as exc:
        return _rejected(index, trade_id, instruction, exc)
    try:
        applied = ledger.apply_trade(execution, expected_version=agent.version, owner=run.owner)
    except VersionConflictError:
        return None
    if not applied:
        return None
    state.apply(execution)
    return TradeOutcome(index, trade_id, instruction, trade=execution.trade)


def execute_all(
    ledger: LedgerStore,
    run: TradeRun,
    instructions: Sequence[Instruction],
    *,
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
            outcome = _execute_known(ledger, known, run, index, instruction)
        if outcome is None:
            outcome = execute_one(ledger, run, index, instruction)
            known = None  # the known state is stale: read from now on
        outcomes.append(outcome)
    return outcomes


def plan_all(
    agent: Agent, positions: Sequence[Position], run: TradeRun, instructions: Sequence[Instruction]
) -> list[TradeOutcome]:
    """What ``execute_all`` would do for a fresh decision, writing nothing: each instruction
    checked by the same rules against the portfolio the earlier ones leave (``arena preview``)."""
    state = KnownState(agent, {p.position_id: p for p in positions})
    outcomes = []
    for index, instruction in enumerate(instructions):
        trade_id = trade_id_for(run.decision_id, index)
        ctx = TradeContext(agent.agent_id, agent.cohort_id, run.decision_id, trade_id, run.at)
        try:
            execution = _plan(
                ctx, state.agent, list(state.positions.values()), instruction, run.markets
            )
        except RuleViolationError as exc:
            outcomes.append(_rejected(index, trade_id, instruction, exc))
            continue
        state.apply(execution)
        outcomes.append(TradeOutcome(index, trade_id, instruction, trade=execution.trade))
    return outcomes
