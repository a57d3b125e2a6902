"""Where the static site goes (an S3 bucket behind CloudFront, or a local folder for the demo),
and how a publication writes to it: one at a time, under a lease, through a session that uploads
only what changed.

A publication opens a session (``SitePublisher.open``): the session holds the site's lease until
it is committed or released, so two publications never interleave their writes (the snapshot
tick and the weekly run's Finalize both publish). It hands the session lazy files
(``LazyFile``: a path, its digest when known, its body on demand) and the session uploads those
whose content differs from what was published; with ``repair`` it also checks what the bucket
holds and rewrites what was changed or removed out of band. The publication's own state (what it
carries to the next one) is one payload the session reads at opening and writes at commit, with
the lease released in the same write.
"""

from __future__ import annotations

import hashlib
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from arena_core.errors import InvalidIdError

MAX_KEY_BYTES = 1024  # S3's limit on a key
# The publication's own bookkeeping (its manifest, state, memo and sealed cohorts) lives under
# this prefix: never a page or a file for readers. A folder publisher keeps it beside the site
# folder; on S3 the distribution is refused it (infra/constructs/site.py).
INTERNAL = "_internal/"


def is_internal(path: str) -> bool:
    return path.startswith(INTERNAL)


CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".csv": "text/csv; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".zip": "application/zip",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}


def content_type(path: str) -> str:
    suffix = path[path.rfind(".") :] if "." in path else ""
    return CONTENT_TYPES.get(suffix, "application/octet-stream")


def cache_control(path: str) -> str:
    """Pages and data change every 10 minutes; assets rarely."""
    if path.startswith("static/"):
        return "public, max-age=3600"
    return "public, max-age=60, must-revalidate"


def site_key(path: str) -> str:
    """A key as every publisher writes it (and an export reads it): relative, ``/``-separated
    segments, none empty, ``.`` or ``..``, no control character, at most 1,024 bytes. So a
    folder publisher never leaves its folder, whatever a key holds; ``InvalidIdError`` else."""
    shown = repr(path[:80]) if isinstance(path, str) else type(path).__name__
    if (
        not isinstance(path, str)
        or not path
        or len(path.encode("utf-8", "replace")) > MAX_KEY_BYTES
    ):
        raise InvalidIdError(f"not a site key: {shown}")
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in path) or "\\" in path:
        raise InvalidIdError(f"not a site key (control character or backslash): {shown}")
    if any(part in ("", ".", "..") for part in path.split("/")):
        raise InvalidIdError(f"not a site key (empty, '.' or '..' segment): {shown}")
    return path


def digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


@dataclass(frozen=True)
class LazyFile:
    """A file of the site whose body is made only if it must be written: ``digest`` when the
    publication knows it without making the body (a memo hit); ``kept``: a file this
    publication does not redraw (a sealed cohort's, a settled market's), written only when it
    is missing from the site or was changed out of band."""

    path: str
    body: Callable[[], bytes]
    digest: str | None = None
    kept: bool = False

    @classmethod
    def of(cls, path: str, body: bytes) -> LazyFile:
        return cls(path, lambda: body, digest(body))


def lazy_files(files: dict[str, bytes]) -> list[LazyFile]:
    return [LazyFile.of(path, body) for path, body in files.items()]


@dataclass(frozen=True)
class PublishReport:
    uploaded: tuple[str, ...]  # every file written, in the order written
    unchanged: int
    repaired: tuple[str, ...] = ()  # of those, the ones the bucket held otherwise out of band
    checked: int = 0  # files compared with the bucket (a repairing publication)


@dataclass
class Opened:
    """What a session found at opening: the state the last committed publication left (None:
    none, or unreadable) and who held the lease, if it was taken over after it expired."""

    state: bytes | None
    taken_over: str | None = None
    notes: list[str] = field(default_factory=list)


class PublishSession(ABC):
    """One publication's hold on the site (its lease) and its writes."""

    @property
    @abstractmethod
    def opened(self) -> Opened: ...

    @abstractmethod
    def hold(self) -> None:
        """Take the lease if this session does not hold it yet (one opened without holding):
        ``PublicationBusyError`` when another publication took it since the session opened.
        Writing (``publish``, ``commit``) holds first."""

    @abstractmethod
    def read(self, key: str) -> bytes | None:
        """A bookkeeping object (a key under ``INTERNAL``), or None when absent."""

    @abstractmethod
    def known(self, path: str) -> str | None:
        """The digest a file was last published with (None: never, or not known)."""

    @abstractmethod
    def publish(self, files: Iterable[LazyFile], *, repair: bool = False) -> PublishReport:
        """Write the files whose content changed (readers' files first, the bookkeeping under
        ``INTERNAL`` after them); with ``repair``, also those the bucket holds otherwise than
        the manifest records (changed or removed out of band)."""

    @abstractmethod
    def commit(self, state: bytes) -> None:
        """Record what was published and the publication's state, and release the lease.
        ``PublicationBusyError`` if the lease was taken over meanwhile (nothing recorded)."""

    @abstractmethod
    def release(self) -> None:
        """Give the lease up without recording anything (a publication that failed, or found
        nothing due); a session that never held it writes nothing."""


class SitePublisher(ABC):
    @property
    @abstractmethod
    def identity(self) -> str:
        """Where the site lives (a bucket, a folder): a state written elsewhere is not read."""

    @abstractmethod
    def open(
        self, owner: str, now: datetime, lease: timedelta, *, hold: bool = True
    ) -> PublishSession:
        """Take the site's lease for ``lease`` from ``now``. ``PublicationBusyError`` when
        another publication holds it; a lease expired since is taken over. ``hold=False``:
        read what the last publication left and check the lease only, taking it at
        ``PublishSession.hold`` (a tick plans first: one with nothing due writes nothing)."""

    @abstractmethod
    def get(self, path: str) -> bytes | None:
        """A published object as the bucket holds it now (for tests and operators; a
        publication reads no file it published for readers)."""
