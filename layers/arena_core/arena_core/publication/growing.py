"""The markets table, which only grows: one row per market an agent ever held or traded or a
panel asked about, merged from the publication's own stored rows (never from the published
file).

A market's row moves while a live cohort touches it or until it is resolved (its status, its
resolution and the positions on it can still change); after that it is final. Each site-wide
publication therefore reads again the markets the live cohorts touch, every market not final
yet, and any a sealed cohort touched that the table does not hold (a fresh state); the others
stay as stored.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping
from typing import Any

from arena_core.dataset import exports
from arena_core.publication.state import Objects

NAME = "growing/markets"
Row = dict[str, Any]


class GrowingMarkets:
    def __init__(self, objects: Objects) -> None:
        self._objects = objects
        self._rows, self._final = _load(objects.get(NAME))
        self._changed = False

    def due(self, touched: Iterable[str], sealed: Iterable[str]) -> list[str]:
        """The markets whose rows are read again: the live cohorts' (``touched``), those not
        final, and those a sealed cohort touched that no row holds yet."""
        held = set(self._rows)
        again = held - self._final
        return sorted(set(touched) | again | (set(sealed) - held))

    def merge(self, rows: Iterable[Row], final: Iterable[str]) -> set[str]:
        """The rows read now (their values as the JSON file holds them) and which are final:
        the markets whose rows changed (their pages show what changed)."""
        moved = set()
        for row in rows:
            cells = {key: exports.cell(value) for key, value in row.items()}
            market_id = str(cells["market_id"])
            if self._rows.get(market_id) != cells:
                self._rows[market_id] = cells
                moved.add(market_id)
        finals = set(final) & set(self._rows)
        if moved or not finals <= self._final:
            self._final |= finals
            self._changed = True
        return moved

    def rows(self) -> list[Row]:
        return [self._rows[market_id] for market_id in sorted(self._rows)]

    @property
    def final(self) -> frozenset[str]:
        return frozenset(self._final)

    def flush(self) -> None:
        if self._changed:
            body = json.dumps({"rows": self._rows, "final": sorted(self._final)}, sort_keys=True)
            self._objects.put(NAME, gzip.compress(body.encode(), compresslevel=6, mtime=0))
            self._changed = False


def _load(body: bytes | None) -> tuple[dict[str, Row], set[str]]:
    """The stored rows and final markets, or none when they cannot be read (read again)."""
    if body is None:
        return {}, set()
    try:
        found = json.loads(gzip.decompress(body))
        rows, final = found["rows"], found["final"]
        if not isinstance(rows, Mapping) or not all(isinstance(r, dict) for r in rows.values()):
            return {}, set()
        if not isinstance(final, list) or not all(isinstance(f, str) for f in final):
            return {}, set()
        return {str(k): dict(v) for k, v in rows.items()}, set(final)
    except (OSError, EOFError, ValueError, KeyError, TypeError, RecursionError):
        return {}, set()
