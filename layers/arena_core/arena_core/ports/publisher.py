"""Where the static site goes: an S3 bucket behind CloudFront, or a local folder for the demo."""

from __future__ import annotations

import hashlib
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass

from arena_core.errors import InvalidIdError

MAX_KEY_BYTES = 1024  # S3's limit on a key
# The publication's own bookkeeping (its manifest, what each cohort's pages were rendered from)
# lives under this prefix: never a page or a file for readers. A folder publisher keeps it
# beside the site folder; on S3 the distribution is refused it (infra/constructs/site.py).
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
class PublishReport:
    uploaded: tuple[str, ...]
    unchanged: int


class SitePublisher(ABC):
    @abstractmethod
    def published(self) -> Mapping[str, str]:
        """Path → content digest of everything already published."""

    @abstractmethod
    def publish(
        self, files: Mapping[str, bytes], known: Mapping[str, str] | None = None
    ) -> PublishReport:
        """Upload the files whose content changed; never delete (old cohorts stay published).
        ``known``: the manifest as this publication read it (``published()``), not read again
        (it lists every file of the site: a second read every ten minutes grows with it)."""

    @abstractmethod
    def read(self, path: str) -> bytes | None:
        """A published file's content (None when absent): what the weekly dataset bundle and
        the markets table carry over from earlier publications."""
