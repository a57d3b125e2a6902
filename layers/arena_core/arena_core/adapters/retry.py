"""Retries with exponential backoff and jitter, honouring Retry-After, within a total budget.

An attempt signals "worth retrying" by raising ``Transient``; anything else propagates at once.
Time and sleep are injected so tests run instantly and deterministically.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar

from arena_core.errors import ArenaError, RetryableUpstreamError

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 425, 429})


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or 500 <= status <= 599


class Transient(Exception):  # noqa: N818 - a signal, not an error the caller sees
    """Raised inside an attempt to ask for a retry; ``retry_after`` overrides the backoff."""

    def __init__(self, reason: str, *, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP-date), or None."""
    if not value:
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    waited: float = (when - (now or datetime.now(UTC))).total_seconds()
    return max(0.0, waited)


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try: attempts, backoff curve and the total time allowed for retrying."""

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    total_budget: float = 30.0

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Equal jitter: half the exponential step fixed, half random."""
        step: float = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        return step / 2 + rng.uniform(0, step / 2)


@dataclass
class Retrier:
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    rng: random.Random = field(default_factory=random.Random)
    on_retry: Callable[[str, float], None] | None = None
    give_up: type[ArenaError] = RetryableUpstreamError

    def run(self, attempt: Callable[[int], T], *, what: str) -> tuple[T, int]:
        """Call ``attempt(n)`` until it returns; give up after the attempts or the budget."""
        started = self.clock()
        number = 1
        while True:
            try:
                return attempt(number), number
            except Transient as signal:
                if number >= self.policy.max_attempts:
                    raise self.give_up(
                        f"{what}: gave up after {number} attempts: {signal.reason}"
                    ) from signal
                delay = (
                    signal.retry_after
                    if signal.retry_after is not None
                    else self.policy.backoff(number, self.rng)
                )
                spent = self.clock() - started
                if spent + delay > self.policy.total_budget:
                    raise self.give_up(
                        f"{what}: retry budget of {self.policy.total_budget:g}s exhausted "
                        f"after {number} attempts ({signal.reason}; next wait {delay:.1f}s)"
                    ) from signal
                if self.on_retry is not None:
                    self.on_retry(signal.reason, delay)
                self.sleep(delay)
                number += 1
