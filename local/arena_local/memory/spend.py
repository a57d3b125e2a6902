"""The weekly LLM spend in memory (the demo and tests)."""

from __future__ import annotations

import threading
from datetime import date
from decimal import Decimal

from arena_core.ports.spend_store import SpendStore


class MemorySpendStore(SpendStore):
    def __init__(self) -> None:
        self._spent: dict[date, Decimal] = {}
        self._lock = threading.Lock()

    def spent(self, week: date) -> Decimal:
        with self._lock:
            return self._spent.get(week, Decimal(0))

    def add(self, week: date, dollars: Decimal) -> None:
        with self._lock:
            self._spent[week] = self._spent.get(week, Decimal(0)) + dollars
