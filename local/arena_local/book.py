"""An agent's book in memory: cash, positions and the ledger, kept consistent by the accounting.

Used wherever a whole portfolio is replayed without a database (property tests, simulations).
Every operation either applies completely or raises and changes nothing. It settles by the
settlement service's rule (``services/settlement.py``): the open positions on a resolved market
are settled, then every buy on the market not scored yet is scored, whatever became of its
position (a position sold out before resolution keeps its buys' scores).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from decimal import Decimal

from arena_core.domain import accounting
from arena_core.domain.accounting import Mark, TradeContext
from arena_core.domain.market import Market
from arena_core.domain.portfolio import BetScore, Position, Settlement, Trade, TradeKind
from arena_core.domain.rules import STARTING_BALANCE
from arena_core.domain.valuation import LedgerSums, Totals, reconcile, totals
from arena_core.errors import UnknownPositionError
from arena_core.scoring.bets import score_buys


class Book:
    def __init__(
        self,
        agent_id: str,
        *,
        cohort_id: str = "c",
        family_id: str = "f",
        starting: Decimal = STARTING_BALANCE,
    ) -> None:
        self.agent_id = agent_id
        self.cohort_id = cohort_id
        self.family_id = family_id
        self.starting = starting
        self.cash = starting
        self.positions: dict[str, Position] = {}
        self.trades: list[Trade] = []
        self.settlements: list[Settlement] = []
        self.bet_scores: list[BetScore] = []

    def open_position(self, market_id: str, side: str) -> Position | None:
        return next(
            (
                p
                for p in self.positions.values()
                if p.is_open and p.market_id == market_id and p.side == side
            ),
            None,
        )

    def _context(self, decision_id: str, at: datetime) -> TradeContext:
        trade_id = f"{decision_id}-t{len(self.trades)}"
        return TradeContext(self.agent_id, self.cohort_id, decision_id, trade_id, at)

    def _record(self, execution: accounting.Execution) -> Trade:
        self.cash = execution.cash_after
        self.positions[execution.position.position_id] = execution.position
        self.trades.append(execution.trade)
        return execution.trade

    def buy(
        self, market: Market, side: str, amount: Decimal, *, decision_id: str, at: datetime
    ) -> Trade:
        existing = self.open_position(market.market_id, market.canonical_side(side))
        execution = accounting.buy(
            self._context(decision_id, at),
            cash=self.cash,
            market=market,
            side=side,
            amount=amount,
            existing=existing,
        )
        return self._record(execution)

    def sell(
        self,
        market: Market,
        position_id: str,
        percentage: Decimal,
        *,
        decision_id: str,
        at: datetime,
    ) -> Trade:
        position = self.positions.get(position_id)
        if position is None:
            raise UnknownPositionError(f"position {position_id} does not exist")
        execution = accounting.sell(
            self._context(decision_id, at),
            cash=self.cash,
            market=market,
            position=position,
            percentage=percentage,
        )
        return self._record(execution)

    def settle(self, market: Market, *, at: datetime) -> list[Settlement]:
        """Settle every open position on a resolved market, then score every buy on it that
        is not scored yet (sold-out positions' buys included), as the service does."""
        done = []
        for position in [p for p in self.positions.values() if p.is_open]:
            if position.market_id != market.market_id:
                continue
            settled, record = accounting.settle(position, market, at=at)
            self.positions[settled.position_id] = settled
            self.cash += record.payout
            self.settlements.append(record)
            done.append(record)
        scored = {s.trade_id for s in self.bet_scores}
        buys = [
            t
            for t in self.trades
            if t.market_id == market.market_id
            and t.kind is TradeKind.BUY
            and t.trade_id not in scored
        ]
        self.bet_scores.extend(score_buys(buys, market, family_id=self.family_id, at=at))
        return done

    def marks(self, markets: Mapping[str, Market]) -> dict[str, Mark]:
        return {
            p.position_id: accounting.mark(p, markets.get(p.market_id))
            for p in self.positions.values()
            if p.is_open
        }

    def totals(self, markets: Mapping[str, Market]) -> Totals:
        values: Iterable[Decimal] = (m.value for m in self.marks(markets).values())
        return totals(self.cash, values, starting=self.starting)

    def reconcile(self) -> LedgerSums:
        return reconcile(
            self.cash, self.trades, self.settlements, starting=self.starting, agent_id=self.agent_id
        )
