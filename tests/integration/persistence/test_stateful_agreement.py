"""Stateful property test: random opens, claims, trades, crashes, replays, settlements and
snapshot batches, applied side by side to the in-memory fake, the DynamoDB adapter on moto and
the same adapter on DynamoDB Local (AWS's own engine). After every step all three agree on every
ledger and every snapshot read, and every ledger reconciles exactly."""

from datetime import timedelta
from decimal import Decimal
from typing import Any, cast

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from arena_core.adapters.dynamodb import dynamo_stores
from arena_core.domain.answer import BetInstruction, SellInstruction
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.decisions import DecisionRecord, DecisionStatus
from arena_core.domain.lineup import default_lineup
from arena_core.domain.market import Market, ResolutionKind
from arena_core.domain.portfolio import PortfolioSnapshot
from arena_core.domain.valuation import reconcile
from arena_core.errors import ArenaError
from arena_core.ports.stores import Stores
from arena_core.services.settlement import settle_market
from arena_core.services.trading import TradeRun, execute_all
from arena_local.memory import memory_stores
from tests.support.aws import create_stores, embedded_aws
from tests.support.builders import RUN_AT, WEEK0, binary, resolved
from tests.support.crash import SimulatedCrash, crashing
from tests.support.dynamodb_local_fixture import (
    create_local_table,
    shared_server,
    unique_table_name,
)

MARKET_IDS = ["m1", "m2", "m3"]
LEASE = timedelta(minutes=15)

bets = st.builds(
    BetInstruction,
    market_id=st.sampled_from([*MARKET_IDS, "gone"]),
    side=st.sampled_from(["YES", "NO", "maybe"]),
    amount=st.decimals(min_value=Decimal(0), max_value=Decimal(3000), places=2),
)
sells = st.builds(
    SellInstruction,
    position_id=st.integers(0, 5).map(str),  # an index into the agent's positions, resolved below
    percentage=st.decimals(min_value=Decimal("0.5"), max_value=Decimal(100), places=1),
)
instructions = st.lists(st.one_of(bets, sells), min_size=1, max_size=4)
prices = st.sampled_from(["0.10", "0.35", "0.50", "0.80"])


def outcome_of(call: Any) -> Any:
    """The comparable result of a call: its value, or the class of the error it raised."""
    try:
        return ("ok", call())
    except (ArenaError, SimulatedCrash) as exc:
        return ("error", type(exc).__name__)


class Agreement(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self._aws = embedded_aws()
        self._aws.__enter__()
        self._local = shared_server().client()
        self._table = create_local_table(self._local, unique_table_name("agreement"))
        local = dynamo_stores(self._local, self._table)
        self.repos: list[Stores] = [memory_stores(), create_stores(), local]
        cohort = Cohort.open(WEEK0, default_lineup(include_llms=False))
        self.cohort = cohort
        self.agents: list[Agent] = list(cohort.agents())
        for stores in self.repos:
            stores.cohorts.create_cohort(cohort, self.agents)
        self.settled: set[str] = set()
        self.minutes = 0

    def teardown(self) -> None:
        self._local.delete_table(TableName=self._table)
        self._aws.__exit__(None, None, None)

    def both(self, action: Any) -> Any:
        """Apply ``action`` to every store; all must give the same result (or error class)."""
        results = [outcome_of(lambda stores=stores: action(stores)) for stores in self.repos]
        assert all(r == results[0] for r in results), results
        return results[0]

    def _markets(self, price: str) -> dict[str, Market]:
        return {m: binary(m, price) for m in MARKET_IDS if m not in self.settled}

    def _resolve_sells(self, stores: Stores, agent: Agent, items: list[Any]) -> list[Any]:
        positions = stores.ledger.positions(agent.agent_id)
        resolved_items = []
        for item in items:
            if isinstance(item, SellInstruction) and positions:
                target = positions[int(item.position_id) % len(positions)]
                resolved_items.append(item.model_copy(update={"position_id": target.position_id}))
            else:
                resolved_items.append(item)
        return resolved_items

    @rule(days=st.integers(0, 13))
    def reopen(self, days: int) -> None:
        """Opening any moment of an existing week returns it; a new week creates a cohort."""
        cohort = Cohort.open(WEEK0 + timedelta(days=days), default_lineup(include_llms=False))
        self.both(
            lambda r: (
                r.cohorts.create_cohort(cohort, cohort.agents())[1],
                len(r.cohorts.active_cohorts()),
            )
        )

    @rule(
        agent=st.integers(0, 1),
        week=st.integers(1, 2),
        owner=st.sampled_from(["a", "b"]),
        later=st.booleans(),
    )
    def claim(self, agent: int, week: int, owner: str, later: bool) -> None:
        self.minutes += 20 if later else 1
        now = RUN_AT + timedelta(minutes=self.minutes)
        self.both(
            lambda r: r.decisions.claim_decision(
                self.agents[agent], week, owner=owner, now=now, lease=LEASE, max_attempts=2
            )
        )

    @rule(
        agent=st.integers(0, 1),
        week=st.integers(1, 2),
        owner=st.sampled_from(["a", "b"]),
        items=instructions,
        price=prices,
        crash_after=st.none() | st.integers(0, 3),
    )
    def trade(
        self,
        agent: int,
        week: int,
        owner: str,
        items: list[Any],
        price: str,
        crash_after: int | None,
    ) -> None:
        who = self.agents[agent]
        decision_id = DecisionRecord.id_for(who.agent_id, week)
        # Claim first (as the decide service does); a claim already held by this owner is fine.
        self.claim(agent, week, owner, later=False)

        def act(stores: Stores) -> Any:
            target = stores if crash_after is None else crashing(stores, "apply_trade", crash_after)
            trade_run = TradeRun(who.agent_id, decision_id, owner, self._markets(price), RUN_AT)
            orders = self._resolve_sells(stores, who, items)
            outcomes = execute_all(cast(Stores, target).ledger, trade_run, orders)
            return [(o.trade_id, o.executed, o.rejected_rule) for o in outcomes]

        result = self.both(act)
        if result[0] == "ok":
            event(f"trades executed: {sum(1 for _, done, _ in result[1] if done) > 0}")
        else:
            event(f"trade run ended with {result[1]}")

    @rule(
        agent=st.integers(0, 1),
        week=st.integers(1, 2),
        owner=st.sampled_from(["a", "b"]),
        status=st.sampled_from([DecisionStatus.SUCCEEDED, DecisionStatus.RETRYABLE_FAILURE]),
    )
    def finish(self, agent: int, week: int, owner: str, status: DecisionStatus) -> None:
        decision_id = DecisionRecord.id_for(self.agents[agent].agent_id, week)
        self.both(
            lambda r: (
                r.decisions.finish_decision(
                    decision_id, owner=owner, status=status, now=RUN_AT
                ).status
            )
        )

    @rule(
        market=st.sampled_from(MARKET_IDS),
        kind=st.sampled_from(list(ResolutionKind)),
        winner=st.sampled_from(["YES", "NO"]),
        crash_after=st.none() | st.integers(0, 2),
    )
    def settle(
        self, market: str, kind: ResolutionKind, winner: str, crash_after: int | None
    ) -> None:
        held = self.repos[0].markets.markets_to_resolve()
        if held:  # mostly settle markets that hold positions: that is where the risk is
            market = held[MARKET_IDS.index(market) % len(held)]
        final = resolved(binary(market), kind, winner if kind is ResolutionKind.WINNER else None)

        def act(stores: Stores) -> Any:
            target = (
                stores if crash_after is None else crashing(stores, "apply_settlement", crash_after)
            )
            report = settle_market(cast(Stores, target), final, RUN_AT + timedelta(days=1))
            return (len(report.settled), report.marked_resolved)

        result = self.both(act)
        event(f"settlement: {result[0]} {result[1] if result[0] == 'error' else result[1][0] > 0}")
        if result[0] == "ok" and result[1][1]:
            self.settled.add(market)

    @rule(
        agent=st.integers(0, 1),
        minutes=st.lists(st.integers(0, 240), min_size=1, max_size=6, unique=True),
    )
    def snapshot(self, agent: int, minutes: list[int]) -> None:
        """A batch of passes in any order, possibly several in one hour, possibly rewritten."""
        member = self.agents[agent]
        batch = [
            PortfolioSnapshot(
                agent_id=member.agent_id,
                cohort_id=member.cohort_id,
                family_id=member.family_id,
                taken_at=RUN_AT + timedelta(minutes=m),
                cash=Decimal(10000 - m),
                positions_value=Decimal(m),
                total_value=Decimal(10000),
                total_pnl=Decimal(0),
                total_pnl_pct=Decimal(0),
                brier=None,
                resolved_bets=0,
                open_positions=0,
            )
            for m in minutes
        ]
        self.both(lambda r: r.views.put_snapshots(batch))
        self.both(lambda r: r.views.put_hourly(batch))  # as if each pass's hour had closed

    @invariant()
    def snapshots_agree(self) -> None:
        end = RUN_AT + timedelta(hours=5)
        for agent in self.agents[:2]:
            reads = [
                (
                    stores.views.snapshots(agent.agent_id, RUN_AT, end),
                    stores.views.hourly_snapshots(agent.agent_id, RUN_AT, end),
                )
                for stores in self.repos
            ]
            assert all(r == reads[0] for r in reads)
        latest = [stores.views.latest_snapshots(self.cohort) for stores in self.repos]
        assert all(r == latest[0] for r in latest)

    @invariant()
    def ledgers_agree_and_reconcile(self) -> None:
        for agent in self.agents:
            views = []
            for stores in self.repos:
                current = stores.ledger.get_agent(agent.agent_id)
                trades, settlements = (
                    stores.ledger.trades(agent.agent_id),
                    stores.ledger.settlements(agent.agent_id),
                )
                reconcile(current.cash, trades, settlements)
                assert current.cash >= 0
                positions = stores.ledger.positions(agent.agent_id)
                scores, decisions = (
                    stores.ledger.bet_scores(agent.agent_id),
                    stores.decisions.decisions(agent.agent_id),
                )
                views.append((current, trades, positions, settlements, scores, decisions))
            assert all(v == views[0] for v in views)
        to_resolve = [stores.markets.markets_to_resolve() for stores in self.repos]
        assert all(r == to_resolve[0] for r in to_resolve)
        aggregates = [stores.views.family_aggregates() for stores in self.repos]
        assert all(a == aggregates[0] for a in aggregates)


Agreement.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestAgreement = Agreement.TestCase
