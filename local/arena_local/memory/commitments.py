"""The commitments in memory, and the same rules over a folder (the demo's site).

Both behave as the S3 adapter does: ``create`` never replaces an existing key, ``replace`` is
conditional on the version read (a tag: the SHA-256 of the bytes, as an ETag names a version).
One lock per store makes each check-then-write atomic, as S3's conditional writes are.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from pathlib import Path

from arena_core.errors import ConflictError
from arena_core.ports.commitment_store import CommitmentStore, Stored


class InMemoryCommitmentStore(CommitmentStore):
    def __init__(self) -> None:
        self._objects: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self.creates = 0  # objects written (a test counts them)

    # Where the bytes live: a dict here, files in ``FolderCommitmentStore``.
    def _load(self, key: str) -> bytes | None:
        return self._objects.get(key)

    def _save(self, key: str, body: bytes) -> None:
        self._objects[key] = bytes(body)

    def _listing(self) -> Iterable[str]:
        return list(self._objects)

    def create(self, key: str, body: bytes) -> bool:
        with self._lock:
            if self._load(key) is not None:
                return False
            self._save(key, body)
            self.creates += 1
            return True

    def read(self, key: str) -> Stored | None:
        with self._lock:
            body = self._load(key)
        return None if body is None else Stored(body, _tag(body))

    def keys(self, prefix: str) -> list[str]:
        with self._lock:
            return sorted(k for k in self._listing() if k.startswith(prefix))

    def replace(self, key: str, body: bytes, *, expected: str | None) -> None:
        with self._lock:
            current = self._load(key)
            if (None if current is None else _tag(current)) != expected:
                raise ConflictError(f"{key} changed since it was read")
            self._save(key, body)


class FolderCommitmentStore(InMemoryCommitmentStore):
    """Under a site folder (``root/commitments/...``), beside the pages the demo publishes."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self._root = root

    def _path(self, key: str) -> Path:
        path = (self._root / key).resolve()
        if not path.is_relative_to(self._root.resolve()):
            raise ValueError(f"{key!r} is outside the site folder")
        return path

    def _load(self, key: str) -> bytes | None:
        path = self._path(key)
        return path.read_bytes() if path.is_file() else None

    def _save(self, key: str, body: bytes) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body)

    def _listing(self) -> Iterable[str]:
        base = self._root / "commitments"
        if not base.is_dir():
            return []
        return [p.relative_to(self._root).as_posix() for p in base.rglob("*") if p.is_file()]


def _tag(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()
