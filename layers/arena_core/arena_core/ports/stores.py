"""Everything the services persist, by role; each service asks only for the roles it uses.

A service declares its needs as a protocol combining the ``With*`` roles below (deciding needs
cohorts, decisions, the ledger and markets; a snapshot needs no decisions); ``Stores``, the
roles of one store, satisfies any such combination. Implementations share one store underneath
(DynamoDB: one table; in memory: one lock), which is what makes a trade's cash, position and
decision progress one atomic change across roles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from arena_core.ports.cohort_store import CohortStore
from arena_core.ports.decision_store import DecisionStore
from arena_core.ports.ledger_store import LedgerStore
from arena_core.ports.lineup_store import LineupStore
from arena_core.ports.market_store import MarketStore
from arena_core.ports.panel_store import PanelStore
from arena_core.ports.view_store import ViewStore

__all__ = [
    "CohortStore",
    "DecisionStore",
    "LedgerStore",
    "LineupStore",
    "MarketStore",
    "PanelStore",
    "Stores",
    "ViewStore",
    "WithCohorts",
    "WithDecisions",
    "WithLedger",
    "WithLineups",
    "WithMarkets",
    "WithPanel",
    "WithViews",
]


class WithCohorts(Protocol):
    @property
    def cohorts(self) -> CohortStore: ...


class WithDecisions(Protocol):
    @property
    def decisions(self) -> DecisionStore: ...


class WithLedger(Protocol):
    @property
    def ledger(self) -> LedgerStore: ...


class WithLineups(Protocol):
    @property
    def lineups(self) -> LineupStore: ...


class WithMarkets(Protocol):
    @property
    def markets(self) -> MarketStore: ...


class WithPanel(Protocol):
    @property
    def panel(self) -> PanelStore: ...


class WithViews(Protocol):
    @property
    def views(self) -> ViewStore: ...


@dataclass(frozen=True)
class Stores:
    """The roles of one store, as the composition root hands them out."""

    cohorts: CohortStore
    decisions: DecisionStore
    ledger: LedgerStore
    markets: MarketStore
    views: ViewStore
    panel: PanelStore
    lineups: LineupStore
