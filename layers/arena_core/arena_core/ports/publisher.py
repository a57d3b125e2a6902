"""Where the static site goes: an S3 bucket behind CloudFront, or a local folder for the demo."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass

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


def digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


@dataclass(frozen=True)
class PublishReport:
    uploaded: tuple[str, ...]
    unchanged: int


class SitePublisher(ABC):
    @abstractmethod
    def published(self) -> dict[str, str]:
        """Path → content digest of everything already published."""

    @abstractmethod
    def publish(self, files: Mapping[str, bytes]) -> PublishReport:
        """Upload the files whose content changed; never delete (old cohorts stay published)."""

    @abstractmethod
    def read(self, path: str) -> bytes | None:
        """A published file's content (None when absent): what the weekly dataset bundle and
        the markets table carry over from earlier publications."""
