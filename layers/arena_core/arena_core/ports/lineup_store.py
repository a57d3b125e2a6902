"""Lineup releases: numbered, append-only; a release once written never changes."""

from __future__ import annotations

from abc import ABC, abstractmethod

from arena_core.domain.releases import LineupRelease


class LineupStore(ABC):
    @abstractmethod
    def releases(self) -> list[LineupRelease]:
        """Every release, oldest (release 1) first: what ``arena lineup show`` and the site's
        family pages list."""

    @abstractmethod
    def add_release(self, release: LineupRelease) -> bool:
        """Write ``release`` unless a release with its number exists (then False, nothing
        written): concurrent writers of the same number, one wins and the others read again."""
