"""Snapshots and resolution over real repositories (fake and DynamoDB) and a movable market."""

from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from typing import Any, cast

import pytest

from arena_core.domain.answer import BetInstruction
from arena_core.domain.decisions import DecisionStatus
from arena_core.domain.market import Market, MarketStatus, ResolutionKind
from arena_core.domain.market_record import HourlyMarks
from arena_core.domain.portfolio import PortfolioSnapshot, SettlementKind
from arena_core.domain.valuation import reconcile
from arena_core.errors import MarketRefreshError
from arena_core.ports.clock import FixedClock
from arena_core.ports.market_store import MarketStore
from arena_core.ports.stores import Stores
from arena_core.services.resolution import ResolutionService, cohorts_for_decisions
from arena_core.services.snapshot import SnapshotService
from arena_core.services.trading import TradeRun, execute_all
from arena_local.memory import memory_stores
from tests.support.aws import create_stores, embedded_aws
from tests.support.builders import RUN_AT, binary, open_cohort, resolved
from tests.support.crash import SimulatedCrash, crashing
from tests.support.markets import StaticMarketSource

LATER = RUN_AT + timedelta(hours=1)


@pytest.fixture(params=["memory", "dynamodb"])
def stores(request: pytest.FixtureRequest) -> Iterator[Stores]:
    if request.param == "memory":
        yield memory_stores()
        return
    with embedded_aws():
        yield create_stores()


def trade(
    stores: Stores, agent_index: int, bets: list[tuple[str, str, str]], markets: list[Market]
) -> str:
    _, agents = open_cohort(stores)
    agent = agents[agent_index]
    record = stores.decisions.claim_decision(
        agent, 1, owner="o", now=RUN_AT, lease=timedelta(minutes=5), max_attempts=3
    )
    orders = [BetInstruction(market_id=m, side=s, amount=Decimal(a)) for m, s, a in bets]
    by_id = {m.market_id: m for m in markets}
    execute_all(
        stores.ledger, TradeRun(agent.agent_id, record.decision_id, "o", by_id, RUN_AT), orders
    )
    stores.decisions.finish_decision(
        record.decision_id, owner="o", status=DecisionStatus.SUCCEEDED, now=RUN_AT
    )
    stores.cohorts.mark_first_decision(agent.cohort_id, RUN_AT)
    return agent.agent_id


def _latest(stores: Stores, agent_id: str) -> dict[str, PortfolioSnapshot]:
    cohort = stores.cohorts.get_cohort(stores.ledger.get_agent(agent_id).cohort_id)
    assert cohort is not None
    return stores.views.latest_snapshots(cohort)


MARKETS = [binary("m1", "0.40"), binary("m2", "0.25"), binary("m3", "0.50"), binary("m4", "0.60")]


def test_snapshot_marks_side_correct_and_writes_every_agent(stores: Stores) -> None:
    agent_id = trade(stores, 0, [("m1", "YES", "1000"), ("m2", "NO", "750")], MARKETS)
    source = StaticMarketSource([binary("m1", "0.50"), binary("m2", "0.20"), *MARKETS[2:]])
    report = SnapshotService(stores, source, FixedClock(LATER)).run()
    assert (report.agents, report.positions, report.markets, report.requests) == (10, 2, 2, 1)
    latest = _latest(stores, agent_id)
    assert len(latest) == 10
    snap = latest[agent_id]
    # 2500 YES shares at 0.50 + 1000 NO shares at 0.80.
    assert snap.positions_value == Decimal("2050.00")
    assert snap.total_value == Decimal("10300.00")
    assert (snap.total_pnl, snap.total_pnl_pct) == (Decimal("300.00"), Decimal("3"))
    assert snap.taken_at == LATER
    assert snap.open_positions == 2
    assert stores.views.snapshots(agent_id, LATER, LATER) == [snap]
    points = stores.views.series(stores.ledger.get_agent(agent_id).family_id, "raw", LATER, LATER)
    assert points[0].pnl == Decimal("300.00")


def test_an_hour_is_summarised_once_by_the_next_hours_first_pass(stores: Stores) -> None:
    """Passes write their snapshots and raw series points; the hourly snapshot and the
    family's hourly, daily and weekly points of an hour are written once, when it closes,
    from its newest pass (no pass rewrites them every ten minutes)."""
    agent_id = trade(stores, 0, [("m1", "YES", "1000")], MARKETS)
    family = stores.ledger.get_agent(agent_id).family_id
    hour = LATER.replace(minute=0) + timedelta(hours=1)
    source = StaticMarketSource(MARKETS)

    def run(minutes: int, price: str) -> None:
        source.set(binary("m1", price))
        SnapshotService(stores, source, FixedClock(hour + timedelta(minutes=minutes))).run()

    for minutes, price in ((10, "0.41"), (20, "0.42"), (50, "0.45")):
        run(minutes, price)
    next_hour = hour + timedelta(hours=1)
    assert stores.views.hourly_snapshots(agent_id, hour, next_hour) == []
    assert stores.views.series(family, "hour", hour, next_hour) == []
    assert len(stores.views.series(family, "raw", hour, next_hour)) == 3
    run(60, "0.50")  # the first pass of the next hour closes the last one
    (hourly,) = stores.views.hourly_snapshots(agent_id, hour, next_hour)
    assert hourly.taken_at == hour + timedelta(minutes=50)  # the newest of its hour
    assert hourly.positions_value == Decimal("1125.00")  # 2500 shares at 0.45
    for resolution in ("hour", "day", "week"):
        (point,) = stores.views.series(family, resolution, hour - timedelta(days=7), next_hour)
        assert point.taken_at == hour + timedelta(minutes=50)
    run(70, "0.55")  # later passes of the hour do not touch them
    assert stores.views.hourly_snapshots(agent_id, hour, next_hour + timedelta(hours=1)) == [hourly]
    assert len(stores.views.series(family, "hour", hour, next_hour)) == 1
    assert _latest(stores, agent_id)[agent_id].taken_at == hour + timedelta(minutes=70)


def test_a_failed_price_batch_keeps_prior_valuations(stores: Stores) -> None:
    agent_id = trade(stores, 0, [("m1", "YES", "1000"), ("m2", "YES", "100")], MARKETS)
    source = StaticMarketSource([binary("m1", "0.60"), binary("m2", "0.50")])
    SnapshotService(stores, source, FixedClock(LATER)).run()
    source.failing.add("m1")
    report = SnapshotService(stores, source, FixedClock(LATER + timedelta(minutes=10))).run()
    assert report.failed_market_ids == ("m1",)
    snap = _latest(stores, agent_id)[agent_id]
    # m1's 2500 shares at the stored 0.60, not 0; m2's 400 at its fresh 0.50
    assert snap.positions_value == Decimal("1700.00")


def test_a_pass_that_refreshes_no_market_fails_and_writes_nothing(stores: Stores) -> None:
    """Every held market failed to refresh (Polymarket unreachable): the pass used to value
    every position at its last price and look like a good one (NoSnapshot counts invocations).
    It fails, typed, so the scheduled invocation reaches the dead-letter queue's alarm."""
    agent_id = trade(stores, 0, [("m1", "YES", "1000")], MARKETS)
    source = StaticMarketSource([binary("m1", "0.60")])
    SnapshotService(stores, source, FixedClock(LATER)).run()
    source.failing.add("m1")
    with pytest.raises(MarketRefreshError, match="no market refreshed: 1 of 1"):
        SnapshotService(stores, source, FixedClock(LATER + timedelta(minutes=10))).run()
    assert _latest(stores, agent_id)[agent_id].taken_at == LATER  # nothing written
    with pytest.raises(MarketRefreshError):
        ResolutionService(stores, source, FixedClock(LATER + timedelta(minutes=10))).run()
    # The pass after a decision run still marks (at the last prices): it must not fail the run
    after_run = SnapshotService(
        stores, source, FixedClock(LATER + timedelta(minutes=20)), require_refresh=False
    ).run()
    assert after_run.failed_market_ids == ("m1",)
    assert _latest(stores, agent_id)[agent_id].taken_at == LATER + timedelta(minutes=20)


class CountingMarkets:
    """The stores' market role, counting the markets each pass writes."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.written: list[list[str]] = []

    def save_markets(self, markets: Any) -> None:
        self.written.append(sorted(m.market_id for m in markets))
        self.inner.save_markets(markets)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_market_is_written_when_what_it_shows_changes_never_for_volume_alone(
    stores: Stores,
) -> None:
    """On live markets volume moves with every trade: a write per held market and pass (two
    write units with its index copy) was most of the passes' writes."""
    trade(stores, 0, [("m1", "YES", "1000")], MARKETS)
    counting = CountingMarkets(stores.markets)
    writes = replace(stores, markets=cast(MarketStore, counting))
    source = StaticMarketSource([binary("m1", "0.60")])
    moments = iter(LATER + timedelta(minutes=10 * i) for i in range(10))

    def tick(update: dict[str, Any]) -> None:
        source.set(source.markets["m1"].model_copy(update=update))
        SnapshotService(writes, source, FixedClock(next(moments))).run()

    tick({})
    tick({"volume": Decimal("1000.5")})  # volume alone
    tick({"volume": Decimal("2000.25")})
    yes, no = source.markets["m1"].outcomes
    below = yes.model_copy(update={"price": Decimal("0.60004")})  # shown as 0.6000 too
    tick({"outcomes": (below, no)})
    shown = yes.model_copy(update={"price": Decimal("0.6001")})
    tick({"outcomes": (shown, no)})
    tick({"status": MarketStatus.CLOSED})
    assert counting.written == [["m1"], [], [], [], ["m1"], ["m1"]]
    stored = stores.markets.get_markets(["m1"])["m1"]
    assert stored.status is MarketStatus.CLOSED and stored.outcomes[0].price == Decimal("0.6001")


def test_closed_market_without_price_keeps_valuation(stores: Stores) -> None:
    agent_id = trade(stores, 0, [("m1", "YES", "1000")], MARKETS)
    source = StaticMarketSource([binary("m1", "0.70")])
    SnapshotService(stores, source, FixedClock(LATER)).run()
    closed = binary("m1", "0.70").model_copy(update={"status": MarketStatus.CLOSED})
    closed = closed.model_copy(
        update={"outcomes": tuple(o.model_copy(update={"price": None}) for o in closed.outcomes)}
    )
    source.set(closed)
    SnapshotService(stores, source, FixedClock(LATER + timedelta(minutes=10))).run()
    snap = _latest(stores, agent_id)[agent_id]
    assert snap.positions_value == Decimal("1750.00")


def test_resolution_settles_winner_split_indeterminate_and_waits_for_disputes(
    stores: Stores,
) -> None:
    agent_id = trade(
        stores,
        0,
        [("m1", "YES", "1000"), ("m2", "NO", "750"), ("m3", "YES", "500"), ("m4", "NO", "400")],
        MARKETS,
    )
    disputed = MARKETS[3].model_copy(
        update={"status": MarketStatus.CLOSED, "uma_status": "disputed"}
    )
    source = StaticMarketSource(
        [
            resolved(MARKETS[0], ResolutionKind.WINNER, "YES"),
            resolved(MARKETS[1], ResolutionKind.SPLIT),
            resolved(MARKETS[2], ResolutionKind.INDETERMINATE),
            disputed,
        ]
    )
    service = ResolutionService(stores, source, FixedClock(LATER))
    report = service.run()
    kinds = {s.market_id: s.settled[0].kind for s in report.settled}
    assert kinds == {
        "m1": SettlementKind.WON,
        "m2": SettlementKind.SPLIT,
        "m3": SettlementKind.CANCELLED,
    }
    assert stores.markets.markets_to_resolve() == ["m4"]
    assert report.completed_cohorts == ()
    scores = stores.ledger.bet_scores(agent_id)
    assert [s.market_id for s in scores] == ["m1"]  # 50/50 and refunds carry no Brier
    source.set(resolved(MARKETS[3], ResolutionKind.WINNER, "YES"))
    later = ResolutionService(stores, source, FixedClock(LATER + timedelta(hours=1))).run()
    assert [s.settled[0].kind for s in later.settled] == [SettlementKind.LOST]
    assert later.completed_cohorts == (stores.ledger.get_agent(agent_id).cohort_id,)
    agent = stores.ledger.get_agent(agent_id)
    sums = reconcile(
        agent.cash, stores.ledger.trades(agent_id), stores.ledger.settlements(agent_id)
    )
    assert sums.refunds == Decimal("500")
    assert sums.payouts == Decimal("2500") + Decimal("500.00")
    assert agent.cash == Decimal("10000") - Decimal("2650") + Decimal("3000") + Decimal("500")


def test_crash_between_settlements_then_rerun(stores: Stores) -> None:
    first = trade(stores, 0, [("m1", "YES", "1000")], MARKETS)
    second = trade(stores, 1, [("m1", "NO", "600")], MARKETS)
    source = StaticMarketSource([resolved(MARKETS[0], ResolutionKind.WINNER, "NO")])
    crashing_stores = crashing(stores, "apply_settlement", 1)
    with pytest.raises(SimulatedCrash):
        ResolutionService(crashing_stores, source, FixedClock(LATER)).run()
    report = ResolutionService(stores, source, FixedClock(LATER)).run()
    assert len(report.settled[0].settled) == 1
    assert report.settled[0].marked_resolved
    for agent_id in (first, second):
        (settlement,) = stores.ledger.settlements(agent_id)
        agent = stores.ledger.get_agent(agent_id)
        reconcile(agent.cash, stores.ledger.trades(agent_id), stores.ledger.settlements(agent_id))
        assert settlement.kind in (SettlementKind.WON, SettlementKind.LOST)
    again = ResolutionService(stores, source, FixedClock(LATER)).run()
    assert again.settled == ()


def test_a_cohort_whose_agents_all_held_completes(stores: Stores) -> None:
    cohort, _ = open_cohort(stores)
    service = ResolutionService(stores, StaticMarketSource([]), FixedClock(LATER))
    assert service.run().completed_cohorts == ()  # no decision run yet: not complete
    stores.cohorts.mark_first_decision(cohort.cohort_id, RUN_AT)
    assert service.run().completed_cohorts == (cohort.cohort_id,)
    assert stores.cohorts.active_cohorts() == []


def test_completed_cohorts_count_in_the_families_series_from_one_read(stores: Stores) -> None:
    """A completion writes its families' totals; a pass adds them to every family point,
    reading them as one partition; a cohort completed before the totals existed has them
    computed from its final snapshots once, and written."""
    cohort, agents = open_cohort(stores)
    stores.cohorts.mark_first_decision(cohort.cohort_id, RUN_AT)
    ResolutionService(stores, StaticMarketSource([]), FixedClock(LATER)).run()
    totals = stores.views.final_totals()
    assert sorted(t.family_id for t in totals) == sorted(a.family_id for a in agents)
    assert all(t.agents == 1 and t.pnl == 0 and t.cohort_id == cohort.cohort_id for t in totals)
    # A cohort completed as before the totals were kept: its finals, no totals
    legacy, members = open_cohort(stores, RUN_AT + timedelta(weeks=1))
    finals = [
        PortfolioSnapshot(
            agent_id=a.agent_id,
            cohort_id=legacy.cohort_id,
            family_id=a.family_id,
            taken_at=LATER,
            cash=Decimal(11000),
            positions_value=Decimal(0),
            total_value=Decimal(11000),
            total_pnl=Decimal(1000),
            total_pnl_pct=Decimal(10),
            brier=None,
            resolved_bets=0,
            open_positions=0,
        )
        for a in members
    ]
    stores.views.put_finals(finals)
    stores.cohorts.mark_first_decision(legacy.cohort_id, RUN_AT)
    stores.cohorts.complete_cohort(legacy.cohort_id, LATER)
    for minutes in (10, 20):
        moment = LATER + timedelta(minutes=minutes)
        reads = _CountingTotals(stores)
        SnapshotService(
            stores, StaticMarketSource([]), FixedClock(moment), reads=cast(Stores, reads)
        ).run()
        assert reads.final_reads == 1
        assert reads.latest_reads == (1 if minutes == 10 else 0)  # the legacy cohort, once
    family = agents[0].family_id
    (point,) = stores.views.series(family, "raw", moment, moment)
    assert (point.agents, point.pnl, point.return_pct) == (2, Decimal(1000), Decimal(5))


class _CountingTotals:
    """Stores whose views count the reads of final totals and of completed cohorts' latest."""

    def __init__(self, stores: Stores) -> None:
        self._stores = stores
        self.final_reads = self.latest_reads = 0
        self.views = self

    def final_totals(self) -> Any:
        self.final_reads += 1
        return self._stores.views.final_totals()

    def latest_snapshots(self, cohort: Any) -> Any:
        self.latest_reads += 1
        return self._stores.views.latest_snapshots(cohort)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stores, name)


def test_decision_horizon_keeps_the_most_recent_cohorts() -> None:
    from arena_core.domain.cohort import Cohort  # noqa: PLC0415
    from arena_core.domain.lineup import default_lineup  # noqa: PLC0415

    cohorts = [Cohort.open(RUN_AT + timedelta(weeks=w), default_lineup()) for w in range(8)]
    chosen = cohorts_for_decisions(cohorts[::-1], horizon=5)
    assert [c.cohort_id for c in chosen] == [c.cohort_id for c in cohorts[3:]]
    assert cohorts_for_decisions(cohorts, horizon=0) == []


def test_snapshot_pass_costs_the_minimum_requests(stores: Stores) -> None:
    markets: list[Any] = [binary(f"x{i}", "0.5") for i in range(120)]
    _, agents = open_cohort(stores)
    for index, agent in enumerate(agents[:3]):
        record = stores.decisions.claim_decision(
            agent, 1, owner="o", now=RUN_AT, lease=timedelta(minutes=5), max_attempts=3
        )
        bets = [
            BetInstruction(market_id=f"x{j}", side="YES", amount=Decimal(50))
            for j in range(index * 40, index * 40 + 40)
        ]
        by_id = {m.market_id: m for m in markets}
        trade_run = TradeRun(agent.agent_id, record.decision_id, "o", by_id, RUN_AT)
        execute_all(stores.ledger, trade_run, bets)
    source = StaticMarketSource(markets, batch_size=50)
    report = SnapshotService(stores, source, FixedClock(LATER)).run()
    assert report.markets == 120
    assert report.requests == 3


MARKS_HOUR = RUN_AT.replace(minute=0) + timedelta(hours=2)


def test_one_sheet_an_hour_from_its_first_pass(stores: Stores) -> None:
    trade(stores, 0, [("m1", "YES", "1000"), ("m2", "NO", "500")], MARKETS)
    source = StaticMarketSource(MARKETS)

    def run(minutes: int, m1: str) -> None:
        source.set(binary("m1", m1))
        SnapshotService(stores, source, FixedClock(MARKS_HOUR + timedelta(minutes=minutes))).run()

    run(3, "0.41")  # the first pass of the hour
    run(13, "0.42")
    run(23, "0.43")
    run(3, "0.41")  # a rerun of the first pass: the same sheet again
    day = (MARKS_HOUR - timedelta(days=1), MARKS_HOUR + timedelta(days=1))
    expected = HourlyMarks(hour=MARKS_HOUR, prices={"m1": Decimal("0.41"), "m2": Decimal("0.25")})
    assert stores.markets.marks(*day) == [expected]
    run(63, "0.50")  # the next hour's first pass
    assert [s.prices["m1"] for s in stores.markets.marks(*day)] == [
        Decimal("0.41"),
        Decimal("0.50"),
    ]


def test_markets_without_a_price_to_mark_are_left_out_and_no_holding_no_sheet(
    stores: Stores,
) -> None:
    source = StaticMarketSource(MARKETS)
    SnapshotService(stores, source, FixedClock(MARKS_HOUR)).run()  # nothing held yet
    assert stores.markets.marks(MARKS_HOUR, MARKS_HOUR) == []
    trade(stores, 0, [("m1", "YES", "1000"), ("m2", "NO", "500")], MARKETS)
    source.set(resolved(binary("m2", "0.99"), ResolutionKind.WINNER, "Yes"))
    later = MARKS_HOUR + timedelta(hours=1)
    SnapshotService(stores, source, FixedClock(later)).run()
    (sheet,) = stores.markets.marks(later, later)
    assert sheet.prices == {"m1": Decimal("0.40")}  # m2 resolved: its page shows what it paid
