"""Large audit blobs (prompts, raw responses, market universes) live outside the table."""

from __future__ import annotations

from abc import ABC, abstractmethod


class BlobStore(ABC):
    @abstractmethod
    def put(self, key: str, body: bytes, *, content_type: str = "application/json") -> str:
        """Store ``body`` under ``key`` (overwriting) and return the reference to keep."""

    @abstractmethod
    def find(self, key: str) -> str | None:
        """The reference of the blob stored under ``key``, or None when there is none."""

    @abstractmethod
    def get(self, ref: str) -> bytes:
        """The bytes behind a reference; ``NotFoundError`` when absent."""
