"""Reading a published site for ``arena verify``: a folder (the demo's, or a downloaded copy)
or its URL (CloudFront), file by file.

Over HTTP a missing object answers 404, or 403 from CloudFront in front of a private bucket:
both mean "absent". Any other failure is an ``UpstreamError`` (the command's one-line error).
The ``Last-Modified`` header S3 gives an object is kept: it is the time S3 stored it, which no
one can set earlier, so ``arena verify`` can check that a commitment was stored when it says.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from arena_core.errors import ConfigurationError, UpstreamError

ABSENT = (403, 404)
TIMEOUT = httpx.Timeout(30.0)


@dataclass(frozen=True)
class Fetched:
    body: bytes
    stored_at: datetime | None = None  # Last-Modified, over HTTP

    def json(self) -> Any:
        return json.loads(self.body)


class SiteReader(ABC):
    location: str

    @abstractmethod
    def get(self, path: str) -> Fetched | None:
        """The file at ``path`` (relative to the site's root), or None when it is absent."""


class FolderSite(SiteReader):
    def __init__(self, root: Path) -> None:
        if not root.is_dir():
            raise ConfigurationError(f"no site folder at {root}")
        self._root = root.resolve()
        self.location = str(root)

    def get(self, path: str) -> Fetched | None:
        target = (self._root / path).resolve()
        if not target.is_relative_to(self._root):  # a hostile key in a log: never leave the site
            return None
        return Fetched(target.read_bytes()) if target.is_file() else None


class HttpSite(SiteReader):
    def __init__(self, base_url: str, client: httpx.Client) -> None:
        self._base = base_url.rstrip("/") + "/"
        self._client = client
        self.location = base_url

    def get(self, path: str) -> Fetched | None:
        url = self._base + quote(path.lstrip("/"))
        try:
            response = self._client.get(url)
        except httpx.HTTPError as exc:
            raise UpstreamError(f"cannot fetch {url}: {exc}") from exc
        if response.status_code in ABSENT:
            return None
        if response.status_code != 200:
            raise UpstreamError(f"cannot fetch {url}: HTTP {response.status_code}")
        return Fetched(response.content, _stored_at(response.headers.get("last-modified")))


def _stored_at(header: str | None) -> datetime | None:
    if not header:
        return None
    try:
        return parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None


def open_site(location: str, client: httpx.Client | None = None) -> SiteReader:
    """A reader for ``location``: an http(s) URL, else a folder."""
    if location.startswith(("http://", "https://")):
        return HttpSite(location, client or httpx.Client(timeout=TIMEOUT, follow_redirects=True))
    return FolderSite(Path(location))
