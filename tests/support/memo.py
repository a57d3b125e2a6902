"""A publication's memo over bookkeeping kept in a dict, and the ``keep`` the leaderboard build
takes from it (as ``publication/boards.py`` makes it), for tests of what is kept."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from arena_core.adapters.manifest import ROOT, Root
from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.publication.memo import Memo
from arena_core.publication.slots import BETS, RETURNS
from arena_core.publication.state import Objects, State, object_key

T = TypeVar("T")
NOW = datetime(2026, 3, 1, tzinfo=UTC)
PARTS = {"bets": BETS, "returns": RETURNS}


class Bookkeeping:
    """The state and its objects, kept from one publication's memo to the next's."""

    def __init__(self) -> None:
        self.state = State(identity="test")
        self.objects: dict[str, bytes] = {}

    def open(self, now: datetime = NOW) -> tuple[Memo, Objects]:
        objects = Objects(self.state, self.objects.get)
        return Memo(objects, now), objects

    def save(self, memo: Memo, objects: Objects) -> None:
        memo.flush()
        self.objects |= objects.written()

    def keep(self, methodology: str = "v1") -> Keeping:
        return Keeping(self, methodology)

    @staticmethod
    def shard(name: str) -> str:
        return object_key(f"memo/{name}")


class Keeping:
    """A build's ``keep``: each part through a memo of its own over the bookkeeping, saved at
    once (the next call reads back what this one kept)."""

    def __init__(self, books: Bookkeeping, methodology: str) -> None:
        self._books = books
        self._methodology = methodology
        self.misses: list[tuple[str, str]] = []

    def __call__(self, part: str, inputs: object, compute: Callable[[], T]) -> T:
        memo, objects = self._books.open()
        address = f"board/{self._methodology}/{part}"
        value = memo.get(PARTS[part], address, inputs, compute)  # type: ignore[arg-type]
        self.misses += memo.misses
        self._books.save(memo, objects)
        return value


def folder_state(site: Path) -> tuple[State, Callable[[str], bytes | None]]:
    """The state a publication into the folder ``site`` left, and a reader of the objects it
    links (each only as linked: another one reads as None)."""
    publisher = LocalFolderPublisher(site)
    root = Root(publisher.get(ROOT))
    state, _ = State.load(root.state or None, publisher.identity)
    objects = Objects(state, publisher.get)
    return state, objects.get
