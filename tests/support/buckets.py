"""A bucket in memory (``adapters/manifest.Bucket``), every read and write recorded, and the
shortest publication through the writer: open, publish, commit."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta

from arena_core.adapters.manifest import Bucket, ManifestPublisher
from arena_core.errors import ConflictError, PersistenceError
from arena_core.ports.publisher import INTERNAL, LazyFile, PublishReport, lazy_files

NOW = datetime(2026, 3, 1, tzinfo=UTC)
LEASE = timedelta(minutes=6)


def md5(body: bytes) -> str:
    return hashlib.md5(body, usedforsecurity=False).hexdigest()


class MemoryBucket(Bucket):
    """Objects in a dict; ``fail_after``: puts before every further one fails."""

    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}
        self.reads: list[str] = []
        self.writes: list[str] = []
        self.fail_after: int | None = None

    @property
    def identity(self) -> str:
        return "memory"

    def get(self, key: str) -> tuple[bytes, str] | None:
        self.reads.append(key)
        body = self.objects.get(key)
        return None if body is None else (body, md5(body))

    def put(self, key: str, body: bytes, *, match: str | None = None, absent: bool = False) -> str:
        if self.fail_after is not None and len(self.writes) >= self.fail_after:
            raise PersistenceError("the upload failed half-way")
        current = self.objects.get(key)
        if (absent and current is not None) or (
            match is not None and (current is None or md5(current) != match)
        ):
            raise ConflictError(f"{key}: changed since it was read")
        self.writes.append(key)
        self.objects[key] = body
        return md5(body)

    def listing(self) -> dict[str, str]:
        return {k: md5(v) for k, v in self.objects.items() if not k.startswith(INTERNAL)}

    def forget(self) -> None:
        self.reads.clear()
        self.writes.clear()


def publish(
    publisher: ManifestPublisher,
    files: Mapping[str, bytes] | Iterable[LazyFile],
    *,
    repair: bool = False,
    state: bytes = b"",
    now: datetime = NOW,
) -> PublishReport:
    """One publication of ``files`` (bodies, or lazy files): open, publish, commit."""
    lazy = lazy_files(dict(files)) if isinstance(files, Mapping) else list(files)
    session = publisher.open("test", now, LEASE)
    report = session.publish(lazy, repair=repair)
    session.commit(state)
    return report
