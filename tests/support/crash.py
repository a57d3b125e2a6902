"""Crash injection: a repository proxy that dies on the n-th call of chosen methods."""

from __future__ import annotations

from typing import Any

from arena_core.ports.repository import Repository


class SimulatedCrash(Exception):  # noqa: N818 - models a process dying, not an error to handle
    """The process died here; nothing after this point ran."""


class CrashingRepository:
    """Delegates to ``inner``; after ``after`` successful calls of ``method``, the next crashes.

    ``after=0`` crashes before the first call reaches the repository.
    """

    def __init__(self, inner: Repository, method: str, after: int) -> None:
        self._inner = inner
        self._method = method
        self._after = after
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if name != self._method:
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.calls >= self._after:
                raise SimulatedCrash(f"crash before {name} call {self.calls + 1}")
            self.calls += 1
            return attribute(*args, **kwargs)

        return call
