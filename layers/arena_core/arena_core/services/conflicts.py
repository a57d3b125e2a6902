"""Optimistic concurrency: re-read and re-plan when an agent's portfolio moved under us.

A trade and a settlement each read the agent (cash, version), plan their change and write it
conditionally on that version; a ``VersionConflictError`` means someone else changed the
portfolio first (a settlement during a decision, say), so the step runs again from a fresh read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from arena_core.errors import VersionConflictError

T = TypeVar("T")
MAX_CONFLICT_RETRIES = 20


def until_no_conflict(step: Callable[[], T], *, what: str, limit: int = MAX_CONFLICT_RETRIES) -> T:
    """Run ``step`` until it does not raise ``VersionConflictError`` (at most ``limit`` times)."""
    for _ in range(limit):
        try:
            return step()
        except VersionConflictError:
            continue
    raise VersionConflictError(f"{what} kept conflicting")
