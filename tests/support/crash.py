"""Crash injection: stores whose role dies on the n-th call of a chosen method."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from arena_core.ports.stores import Stores


class SimulatedCrash(BaseException):
    """The process died here; nothing after this point ran."""


class CrashingRole:
    """Delegates to ``inner``; after ``after`` successful calls of ``method``, the next crashes.

    ``after=0`` crashes before the first call reaches the store.
    """

    def __init__(self, inner: object, method: str, after: int) -> None:
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


def crashing(stores: Stores, method: str, after: int) -> Stores:
    """``stores`` with the role that owns ``method`` replaced by a ``CrashingRole``."""
    (role,) = [f.name for f in fields(stores) if hasattr(getattr(stores, f.name), method)]
    proxy: Any = CrashingRole(getattr(stores, role), method, after)  # stands in for the role
    return replace(stores, **{role: proxy})
