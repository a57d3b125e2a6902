"""The repository port on one DynamoDB table (key design: ACCESS_PATTERNS.md beside this file).

Integrity comes from the database, not from luck: cohorts and trades are written with
``attribute_not_exists``, claims with conditions on status, owner and lease, and every change to
an agent's cash is a transaction whose version check serializes the whole portfolio.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from datetime import datetime
from typing import Any

from arena_core.adapters.dynamodb import schema as k
from arena_core.adapters.dynamodb.codec import decode, encode, from_attributes, from_fields
from arena_core.adapters.dynamodb.decisions import decision_record
from arena_core.adapters.dynamodb.ledger import LedgerStore
from arena_core.adapters.dynamodb.table import ConditionFailed, Expr, Table, TransactionCancelled
from arena_core.domain.cohort import Agent, Cohort, CohortStatus
from arena_core.domain.market import Market
from arena_core.domain.portfolio import (
    BetScore,
    PortfolioSnapshot,
    Position,
    SeriesPoint,
    Settlement,
    Trade,
)
from arena_core.errors import (
    NotFoundError,
    PersistenceError,
)
from arena_core.ports.repository import (
    AgentHoldings,
    AgentRecords,
    FamilyAggregate,
    aggregate_from_flat,
    newest_per_hour,
    snapshot_hour,
)


class DynamoRepository(LedgerStore):
    def __init__(self, client: Any, table_name: str) -> None:
        super().__init__(Table(client, table_name))
        self._holdings: dict[str, AgentHoldings] = {}  # by agent id; see holdings()

    # --- cohorts and agents -------------------------------------------------------------------

    def create_cohort(self, cohort: Cohort, agents: Sequence[Agent]) -> tuple[Cohort, bool]:
        absent = "attribute_not_exists(PK)"
        operations = [
            ("cohort", {"Put": {"Item": cohort_item(cohort), "ConditionExpression": absent}}),
            *(
                (a.agent_id, {"Put": {"Item": agent_item(a), "ConditionExpression": absent}})
                for a in agents
            ),
        ]
        try:
            self.table.transact(operations)
        except TransactionCancelled as exc:
            existing = self.get_cohort(cohort.cohort_id)
            if exc.failed("cohort") and existing is not None:
                return existing, False
            raise PersistenceError(f"cohort {cohort.cohort_id} not created: {exc.reasons}") from exc
        return cohort, True

    def get_cohort(self, cohort_id: str) -> Cohort | None:
        item = self.table.get(k.cohort_key(cohort_id))
        return None if item is None else decode(Cohort, item)

    def active_cohorts(self) -> list[Cohort]:
        items = self.table.index_partition(k.GSI1, k.GSI1PK, "COHORTS#active")
        return sorted((decode(Cohort, i) for i in items), key=lambda c: c.week_start)

    def cohorts(self) -> list[Cohort]:
        found = [
            decode(Cohort, item)
            for status in ("active", "completed")
            for item in self.table.index_partition(k.GSI1, k.GSI1PK, f"COHORTS#{status}")
        ]
        return sorted(found, key=lambda c: c.week_start)

    def mark_first_decision(self, cohort_id: str, at: datetime) -> None:
        expr = Expr()
        field = expr.n("first_decision_at")
        unset = f"attribute_not_exists({field}) OR attribute_type({field}, {expr.v('NULL')})"
        # Already recorded: the first run's time stands.
        with suppress(ConditionFailed):
            self.table.update(
                k.cohort_key(cohort_id), f"SET {field} = {expr.v(at)}", expr, condition=unset
            )

    def complete_cohort(self, cohort_id: str, at: datetime) -> bool:
        expr = Expr()
        done = {"status": CohortStatus.COMPLETED, "completed_at": at, k.GSI1PK: "COHORTS#completed"}
        update = f"SET {expr.assignments(done)}"
        condition = f"{expr.n('status')} = {expr.v(CohortStatus.ACTIVE)}"
        try:
            self.table.update(k.cohort_key(cohort_id), update, expr, condition=condition)
        except ConditionFailed:
            return False
        return True

    def agents(self, cohort_id: str) -> list[Agent]:
        cohort = self.get_cohort(cohort_id)
        if cohort is None:
            return []
        ids = [Agent.id_for(cohort_id, spec.family_id) for spec in cohort.lineup]
        found = [decode(Agent, i) for i in self.table.batch_get([k.agent_key(a) for a in ids])]
        return sorted(found, key=lambda a: a.agent_id)

    def get_agent(self, agent_id: str) -> Agent:
        item = self.table.get(k.agent_key(agent_id))
        if item is None:
            raise NotFoundError(f"no agent {agent_id}")
        return decode(Agent, item)

    # --- markets and settlement ---------------------------------------------------------------

    def agent_records(self, agent_id: str) -> AgentRecords:
        """One query of the agent's partition instead of five."""
        kinds: dict[str, list[dict[str, Any]]] = {}
        for item in self.table.partition(k.agent_pk(agent_id)):
            kinds.setdefault(item[k.SK]["S"].split("#", 1)[0], []).append(item)
        return AgentRecords(
            positions=[decode(Position, i) for i in kinds.get("POSITION", [])],
            trades=[decode(Trade, i) for i in kinds.get("TRADE", [])],
            settlements=[decode(Settlement, i) for i in kinds.get("SETTLEMENT", [])],
            scores=[decode(BetScore, i) for i in kinds.get("SCORE", [])],
            decisions=[decision_record(i) for i in kinds.get("DECISION", [])],
        )

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
        kinds: dict[str, list[dict[str, Any]]] = {}
        window = (k.HOLDINGS_FIRST, k.HOLDINGS_LAST)
        for item in self.table.partition(k.agent_pk(agent_id), between=window):
            kinds.setdefault(item[k.SK]["S"].split("#", 1)[0], []).append(item)
        profile = kinds.get(k.PROFILE)
        if not profile:
            raise NotFoundError(f"no agent {agent_id}")
        found = AgentHoldings(
            agent=decode(Agent, profile[0]),
            positions=[decode(Position, i) for i in kinds.get("POSITION", [])],
            scores=[decode(BetScore, i) for i in kinds.get("SCORE", [])],
        )
        # A query is not isolated from a transaction committing meanwhile: cache only what
        # was read between two identical versions, so a torn read is never kept.
        if found.agent.version == agent.version:
            self._holdings[agent_id] = found
        return found

    def save_markets(self, markets: Sequence[Market]) -> None:
        for market in markets:
            expr = Expr()
            update = (
                f"SET {expr.n('market')} = {expr.v(market.model_dump_json())}, "
                f"{expr.n('market_id')} = {expr.v(market.market_id)}, "
                f"{expr.n('entity')} = {expr.v('market')}"
            )
            self.table.update(k.market_key(market.market_id), update, expr)

    def get_markets(self, market_ids: Sequence[str]) -> dict[str, Market]:
        items = self.table.batch_get([k.market_key(i) for i in dict.fromkeys(market_ids)])
        found = {}
        for item in items:
            fields = from_attributes(item)
            if "market" in fields:
                market = Market.model_validate_json(fields["market"])
                found[market.market_id] = market
        return found

    def markets_with_open_positions(self) -> list[str]:
        items = self.table.index_partition(k.GSI1, k.GSI1PK, k.OPEN_MARKETS)
        open_ids = []
        for item in items:
            fields = from_attributes(item)
            if fields.get("open_positions", 0) > 0:
                open_ids.append(str(fields["market_id"]))
        return sorted(open_ids)

    def open_positions_on(self, market_id: str) -> list[Position]:
        items = self.table.index_partition(k.GSI1, k.GSI1PK, k.open_position_index(market_id))
        found = [decode(Position, i) for i in items]
        return sorted((p for p in found if p.is_open), key=lambda p: (p.agent_id, p.position_id))

    def mark_market_resolved(self, market: Market, at: datetime) -> bool:
        expr = Expr()
        count = expr.n("open_positions")
        resolved = {
            "resolved_at": at,
            "market": market.model_dump_json(),
            "market_id": market.market_id,
        }
        update = f"SET {expr.assignments(resolved)} REMOVE {expr.n(k.GSI1PK)}, {expr.n(k.GSI1SK)}"
        condition = (
            f"(attribute_not_exists({count}) OR {count} <= {expr.v(0)}) "
            f"AND attribute_not_exists({expr.n('resolved_at')})"
        )
        try:
            self.table.update(k.market_key(market.market_id), update, expr, condition=condition)
        except ConditionFailed:
            return False
        return True

    # --- snapshots and aggregates -------------------------------------------------------------

    def put_snapshots(self, snapshots: Sequence[PortfolioSnapshot]) -> None:
        raw = [encode(s, "snapshot", k.snapshot_key(s.agent_id, s.taken_at)) for s in snapshots]
        hourly = [
            encode(s, "hourly", k.hourly_snapshot_key(s.agent_id, snapshot_hour(s.taken_at)))
            for s in newest_per_hour(snapshots)
        ]
        self.table.batch_put(raw + hourly)
        latest: dict[str, PortfolioSnapshot] = {}
        for s in snapshots:
            if s.agent_id not in latest or s.taken_at > latest[s.agent_id].taken_at:
                latest[s.agent_id] = s
        for s in latest.values():
            self._put_latest(s)

    def _put_latest(self, snapshot: PortfolioSnapshot) -> None:
        """Replace the agent's latest snapshot unless a newer one is already there (reruns of
        older passes never move it back)."""
        index = {k.GSI2PK: f"FAMILY#{snapshot.family_id}", k.GSI2SK: f"LATEST#{snapshot.cohort_id}"}
        item = encode(
            snapshot, "latest", k.latest_key(snapshot.cohort_id, snapshot.agent_id), **index
        )
        expr = Expr()
        taken = expr.n("taken_at")
        newer = f"attribute_not_exists({taken}) OR {taken} <= {expr.v(snapshot.taken_at)}"
        with suppress(ConditionFailed):  # a newer snapshot is already the latest
            self.table.put(item, condition=newer, expr=expr)

    def snapshots(self, agent_id: str, start: datetime, end: datetime) -> list[PortfolioSnapshot]:
        window = (k.stamp(start), k.stamp(end))
        items = self.table.partition(k.snapshot_pk(agent_id), between=window)
        return [decode(PortfolioSnapshot, i) for i in items]

    def hourly_snapshots(
        self, agent_id: str, start: datetime, end: datetime
    ) -> list[PortfolioSnapshot]:
        window = (k.stamp(snapshot_hour(start)), k.stamp(snapshot_hour(end)))
        items = self.table.partition(k.hourly_snapshot_pk(agent_id), between=window)
        return [decode(PortfolioSnapshot, i) for i in items]

    def latest_snapshots(self, cohort_id: str) -> dict[str, PortfolioSnapshot]:
        items = self.table.partition(k.cohort_key(cohort_id)[k.PK], "LATEST#")
        found = [decode(PortfolioSnapshot, i) for i in items]
        return {s.agent_id: s for s in found}

    def put_series(self, points: Sequence[SeriesPoint]) -> None:
        self.table.batch_put(
            [encode(p, "series", k.series_key(p.family_id, p.resolution, p.bucket)) for p in points]
        )

    def series(
        self, family_id: str, resolution: str, start: datetime, end: datetime
    ) -> list[SeriesPoint]:
        window = (k.stamp(start), k.stamp(end))
        items = self.table.partition(k.series_pk(family_id, resolution), between=window)
        return [decode(SeriesPoint, i) for i in items]

    def family_latest(self, family_id: str) -> list[PortfolioSnapshot]:
        items = self.table.index_partition(k.GSI2, k.GSI2PK, f"FAMILY#{family_id}")
        found = [from_attributes(i) for i in items]
        latest = [from_fields(PortfolioSnapshot, f) for f in found if f.get("entity") == "latest"]
        return sorted(latest, key=lambda s: s.cohort_id)

    def family_aggregates(self) -> dict[str, FamilyAggregate]:
        found = []
        for item in self.table.partition(k.AGGREGATES):
            flat = from_attributes(item)
            found.append(aggregate_from_flat(str(flat["family_id"]), flat))
        return {a.family_id: a for a in found}


def cohort_item(cohort: Cohort) -> dict[str, Any]:
    index = {k.GSI1PK: f"COHORTS#{cohort.status.value}", k.GSI1SK: k.stamp(cohort.week_start)}
    return encode(cohort, "cohort", k.cohort_key(cohort.cohort_id), **index)


def agent_item(agent: Agent) -> dict[str, Any]:
    index = {k.GSI2PK: f"FAMILY#{agent.family_id}", k.GSI2SK: f"AGENT#{agent.cohort_id}"}
    return encode(agent, "agent", k.agent_key(agent.agent_id), **index)
