"""The agents' ledger: accounts (cash, version), trades, positions, settlements, bet scores.

Implementations guarantee: a trade is applied at most once (its deterministic id written with
"not exists"), together with the agent's cash (version-checked), its position, the decision's
progress, the market's count of open positions and the family's trade count, or not at all; a
settlement likewise, with its payout and the closed position; a bet score at most once, with
its share of the family aggregate.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from arena_core.domain.accounting import Execution
from arena_core.domain.cohort import Agent
from arena_core.domain.holdings import AgentHoldings
from arena_core.domain.portfolio import BetScore, Position, Settlement, Trade


class LedgerStore(ABC):
    @abstractmethod
    def get_agent(self, agent_id: str) -> Agent:
        """The agent's account (cash and version), or ``NotFoundError``."""

    @abstractmethod
    def apply_trade(self, execution: Execution, *, expected_version: int, owner: str) -> bool:
        """Apply one trade atomically. False (and no change) when this trade id was already
        applied; ``VersionConflictError`` when the agent changed since ``expected_version``;
        ``ClaimLostError`` when ``owner`` no longer holds the decision."""

    @abstractmethod
    def get_trade(self, agent_id: str, trade_id: str) -> Trade | None: ...

    @abstractmethod
    def trades(self, agent_id: str) -> list[Trade]: ...

    @abstractmethod
    def positions(self, agent_id: str) -> list[Position]:
        """All positions of the agent, open and closed."""

    @abstractmethod
    def open_positions_on(self, market_id: str) -> list[Position]: ...

    @abstractmethod
    def positions_on(self, market_id: str) -> list[Position]:
        """Every position on the market, whatever became of it (open, sold, settled)."""

    @abstractmethod
    def apply_settlement(
        self, position: Position, settlement: Settlement, *, family_id: str, expected_version: int
    ) -> bool:
        """Settle one position atomically; False when it was already settled."""

    @abstractmethod
    def apply_scores(self, agent_id: str, scores: Sequence[BetScore], *, family_id: str) -> int:
        """Record the bet scores not recorded yet (each once, by trade id), adding them to the
        family aggregate in the same write; returns how many were new. Cash is unchanged; the
        agent's version moves, so a cached read of its scores is refreshed."""

    @abstractmethod
    def settlements(self, agent_id: str) -> list[Settlement]: ...

    @abstractmethod
    def bet_scores(self, agent_id: str) -> list[BetScore]: ...

    def holdings(self, agent_id: str) -> AgentHoldings:
        """The agent, its positions and its bet scores (not its decisions or trades): what a
        snapshot reads every 10 minutes. Stores that keep them together read them at once."""
        return AgentHoldings(
            self.get_agent(agent_id), self.positions(agent_id), self.bet_scores(agent_id)
        )

    def holdings_of(self, agent_ids: Sequence[str]) -> dict[str, AgentHoldings]:
        """``holdings`` of several agents (stores may batch the reads)."""
        return {agent_id: self.holdings(agent_id) for agent_id in agent_ids}
