"""Where the public commitments live: write-once objects, and the one log that lists them.

Keys are the site's own (``commitments/...``, see ``arena_core.domain.commitment_log``). A
committed object is created once and never replaced: on S3 with a conditional write
(``If-None-Match``) under Object Lock retention, in the demo as a file in the site folder. The
log is the only object that changes, and only by a conditional replace, so two writers never
lose each other's lines.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass


@dataclass(frozen=True)
class Stored:
    """An object's bytes and the version tag a conditional replace names (an S3 ETag)."""

    body: bytes
    tag: str


class CommitmentStore(ABC):
    @abstractmethod
    def create(self, key: str, body: bytes) -> bool:
        """Store ``body`` under ``key`` unless the key exists (then leave it as it is); True
        when written now. Retained under the deployment's Object Lock settings, if any."""

    @abstractmethod
    def read(self, key: str) -> Stored | None:
        """The object under ``key``, or None when there is none."""

    @abstractmethod
    def keys(self, prefix: str) -> list[str]:
        """Every key that starts with ``prefix``, sorted."""

    @abstractmethod
    def replace(self, key: str, body: bytes, *, expected: str | None) -> None:
        """Write ``body`` under ``key`` if the object is still the version tagged ``expected``
        (None: if there is none yet); a ``ConflictError`` when someone changed it first."""
