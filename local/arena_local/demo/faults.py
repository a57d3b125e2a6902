"""``--faults``: what production will meet, injected into the demo.

- duplicate schedule deliveries: the cohort opener always fires twice; a seeded share of
  snapshot and resolve deliveries arrive twice;
- two concurrent executions of each week's decision run;
- crashes at step boundaries, each once, at its first occasion: after the claim, after the
  model call (before its checkpoint), between trades, between settlements, mid-snapshot (the
  snapshots written, the family series not). A crash raises ``LambdaCrash`` from inside the
  repository, so nothing after it runs; the retries are the deployed system's: the state
  machine's Retry for a decide step, Lambda's two asynchronous retries for a scheduled function.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from typing import Any, cast

from arena_core.ports.stores import (
    CohortStore,
    DecisionStore,
    LedgerStore,
    LineupStore,
    MarketStore,
    PanelStore,
    Stores,
    ViewStore,
)
from arena_local.workflow import LambdaCrash

DUPLICATE_SHARE = 0.02
ASYNC_RETRIES = 2  # Lambda's retries of a failed asynchronous (scheduled) invocation


@dataclass(frozen=True)
class CrashPoint:
    name: str
    method: str
    when: str  # "before" or "after" the repository call


CRASH_POINTS = (
    CrashPoint("after the claim", "claim_decision", "after"),
    CrashPoint("after the model call", "save_checkpoint", "before"),
    CrashPoint("between trades", "apply_trade", "after"),
    CrashPoint("between settlements", "apply_settlement", "after"),
    CrashPoint("mid-snapshot", "put_series", "before"),
)


@dataclass
class FaultInjector:
    """Decides when a crash happens; records which crashes and retries did."""

    seed: int
    points: tuple[CrashPoint, ...] = CRASH_POINTS
    fired: list[str] = field(default_factory=list)
    retries: int = 0
    duplicates: int = 0
    concurrent_runs: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._rng = random.Random(f"{self.seed}:faults")

    def duplicate(self) -> bool:
        """Whether this scheduled delivery arrives twice (seeded)."""
        with self._lock:
            twice = self._rng.random() < DUPLICATE_SHARE
            self.duplicates += twice
            return twice

    def check(self, method: str, when: str) -> None:
        with self._lock:
            for point in self.points:
                due = point.method == method and point.when == when
                if due and point.name not in self.fired:
                    self.fired.append(point.name)
                    raise LambdaCrash(f"injected crash {point.name} ({method})")


class FaultyRole:
    """One store role with the injector consulted around each call."""

    def __init__(self, inner: object, injector: FaultInjector) -> None:
        self._inner = inner
        self._injector = injector

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            self._injector.check(name, "before")
            result = attribute(*args, **kwargs)
            self._injector.check(name, "after")
            return result

        return call


def faulty_stores(stores: Stores, injector: FaultInjector) -> Stores:
    """Every role of ``stores`` with crashes injected (the proxies stand in for the roles)."""
    return Stores(
        cohorts=cast(CohortStore, FaultyRole(stores.cohorts, injector)),
        decisions=cast(DecisionStore, FaultyRole(stores.decisions, injector)),
        ledger=cast(LedgerStore, FaultyRole(stores.ledger, injector)),
        markets=cast(MarketStore, FaultyRole(stores.markets, injector)),
        views=cast(ViewStore, FaultyRole(stores.views, injector)),
        panel=cast(PanelStore, FaultyRole(stores.panel, injector)),
        lineups=cast(LineupStore, FaultyRole(stores.lineups, injector)),
    )
