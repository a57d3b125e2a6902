"""A thread-safe token bucket that keeps request rates under the upstream's documented limits."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class TokenBucket:
    """``rate`` requests per second on average, bursts of up to ``burst``."""

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be positive and burst at least 1")
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._clock = clock
        self._sleep = sleep
        self._stamp = clock()
        self._lock = threading.Lock()

    def acquire(self) -> None:
        while True:
            with self._lock:
                now = self._clock()
                self._tokens = min(self._burst, self._tokens + (now - self._stamp) * self._rate)
                self._stamp = now
                # The epsilon absorbs float rounding: a clock that advanced by exactly the computed
                # wait must grant the token, or the loop would chase ever smaller waits.
                if self._tokens >= 1 - 1e-9:
                    self._tokens = max(0.0, self._tokens - 1)
                    return
                wait = (1 - self._tokens) / self._rate
            self._sleep(wait)
