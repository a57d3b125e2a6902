"""Property tests: after any sequence of buys, sells, settlements and refunds the ledger
reconciles exactly, cash is never negative, and selling 100% closes a position."""

from dataclasses import dataclass
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from arena_core.domain.market import Market, ResolutionKind
from arena_core.domain.portfolio import PositionStatus
from arena_core.errors import RuleViolationError
from arena_local.book import Book
from tests.unit.domain.factories import T0, binary, named, resolved

prices = st.decimals(min_value=Decimal("0.001"), max_value=Decimal("0.999"), places=4)
amounts = st.decimals(min_value=Decimal("0"), max_value=Decimal("4000"), places=3)
percentages = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("100"), places=2)
MARKET_IDS = ["m1", "m2", "m3", "m4"]


def market_at(market_id: str, price: Decimal) -> Market:
    if market_id == "m4":
        rest = (Decimal(1) - price) / 2
        return named("m4", {"A": str(price), "B": str(rest), "C": str(Decimal(1) - price - rest)})
    return binary(market_id, yes=str(price))


@dataclass(frozen=True)
class Buy:
    market_id: str
    side: str
    amount: Decimal
    price: Decimal


@dataclass(frozen=True)
class Sell:
    index: int
    percentage: Decimal
    price: Decimal


@dataclass(frozen=True)
class Settle:
    market_id: str
    resolution: ResolutionKind
    winner: str


markets = st.sampled_from(MARKET_IDS)
buy_op = st.builds(Buy, markets, st.sampled_from(["YES", "NO", "A", "B"]), amounts, prices)
sell_op = st.builds(Sell, st.integers(0, 20), percentages, prices)
settle_op = st.builds(
    Settle, markets, st.sampled_from(list(ResolutionKind)), st.sampled_from(["YES", "NO", "A", "C"])
)
operations = st.lists(st.one_of(buy_op, buy_op, sell_op, sell_op, settle_op), max_size=40)
Operation = Buy | Sell | Settle


def apply_sell(book: Book, op: Sell, decision: str) -> None:
    open_positions = [p for p in book.positions.values() if p.is_open]
    if not open_positions:
        return
    position = open_positions[op.index % len(open_positions)]
    market = market_at(position.market_id, op.price)
    book.sell(market, position.position_id, op.percentage, decision_id=decision, at=T0)
    after = book.positions[position.position_id]
    if op.percentage == 100:
        assert after.status is PositionStatus.CLOSED
        assert after.shares == 0
        assert after.cost_basis == 0
    else:
        assert after.shares < position.shares


def apply_settle(book: Book, op: Settle) -> None:
    base = market_at(op.market_id, Decimal("0.5"))
    winner: str | None = None
    if op.resolution is ResolutionKind.WINNER:
        matching = [s for s in base.sides if s.casefold() == op.winner.casefold()]
        winner = matching[0] if matching else base.sides[0]
    book.settle(resolved(base, op.resolution, winner), at=T0)


def apply(book: Book, op: Operation, settled: set[str], step: int) -> None:
    decision = f"d{step}"
    if isinstance(op, Buy):
        if op.market_id not in settled:
            market = market_at(op.market_id, op.price)
            book.buy(market, op.side, op.amount, decision_id=decision, at=T0)
    elif isinstance(op, Sell):
        apply_sell(book, op, decision)
    else:
        apply_settle(book, op)
        settled.add(op.market_id)


@settings(max_examples=400, deadline=None)
@given(operations)
def test_random_ledgers_reconcile_exactly(ops: list[Operation]) -> None:
    book = Book("agent")
    settled: set[str] = set()
    for step, op in enumerate(ops):
        cash_before = book.cash
        trades_before = len(book.trades)
        try:
            apply(book, op, settled, step)
        except RuleViolationError:
            # A refused trade changes nothing.
            assert book.cash == cash_before
            assert len(book.trades) == trades_before
        assert book.cash >= 0
        book.reconcile()
    for position in book.positions.values():
        if position.status is PositionStatus.CLOSED:
            assert position.shares == 0
        elif position.is_open:
            assert position.shares > 0
    # Realized P/L of closed-out and settled positions plus the value still at cost equals cash
    # movements: a second, independent identity over the same records.
    invested = sum((p.cost_basis for p in book.positions.values() if p.is_open), Decimal(0))
    realized = sum((p.realized_pnl for p in book.positions.values()), Decimal(0))
    assert book.cash == book.starting - invested + realized
