"""The demo's errors: part of the one hierarchy (``ArenaError``), shown to the user as one line."""

from __future__ import annotations

from arena_core.errors import ArenaError


class DemoError(ArenaError):
    """The demo cannot run as asked (bad option, unreadable input, unsupported template)."""


class MarketsFileError(DemoError):
    """The ``--markets`` file is missing, unreadable or not a Gamma ``/markets`` dump."""


class LedgerMismatchDemoError(DemoError):
    """The fault run's ledger differs from the clean run's: idempotency is broken."""
