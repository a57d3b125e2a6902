"""Lineup releases in memory: the same rule as the conditional put, under the lock."""

from __future__ import annotations

from arena_core.domain.releases import LineupRelease
from arena_core.ports.lineup_store import LineupStore
from arena_local.memory.state import MemoryState


class MemoryLineupStore(LineupStore):
    def __init__(self, state: MemoryState) -> None:
        self._s = state

    def releases(self) -> list[LineupRelease]:
        with self._s.lock:
            return sorted(self._s.lineup_releases.values(), key=lambda r: r.release)

    def add_release(self, release: LineupRelease) -> bool:
        with self._s.lock:
            if release.release in self._s.lineup_releases:
                return False
            self._s.lineup_releases[release.release] = release
            return True
