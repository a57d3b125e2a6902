"""What the models of a decision run's week have cost so far: the weekly LLM budget's ledger."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date
from decimal import Decimal


class SpendStore(ABC):
    @abstractmethod
    def spent(self, week: date) -> Decimal:
        """Dollars the models' replies of the week (its Sunday) have cost so far."""

    @abstractmethod
    def add(self, week: date, dollars: Decimal) -> None:
        """Add one reply's cost to the week's, atomically (agents answer at once)."""
