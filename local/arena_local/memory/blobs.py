"""The blob store in memory."""

from __future__ import annotations

import threading

from arena_core.errors import NotFoundError
from arena_core.ports.blob_store import BlobStore


class InMemoryBlobStore(BlobStore):
    def __init__(self) -> None:
        self._blobs: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def put(self, key: str, body: bytes, *, content_type: str = "application/json") -> str:
        del content_type  # kept only by stores that serve blobs over HTTP
        with self._lock:
            self._blobs[key] = bytes(body)
        return key

    def find(self, key: str) -> str | None:
        with self._lock:
            return key if key in self._blobs else None

    def get(self, ref: str) -> bytes:
        with self._lock:
            if ref not in self._blobs:
                raise NotFoundError(f"no blob {ref!r}")
            return self._blobs[ref]
