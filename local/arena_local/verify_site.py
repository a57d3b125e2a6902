"""Reading a published site for ``arena verify``: a folder (the demo's, or a downloaded copy)
or its URL (CloudFront), file by file.

Over HTTP a missing object answers 404, or 403 from CloudFront in front of a private bucket:
both mean "absent". Any other failure is an ``UpstreamError`` (the command's one-line error).
The ``Last-Modified`` header S3 gives an object is kept: it is the time S3 stored it, which no
one can set earlier, so ``arena verify`` can check that a commitment was stored when it says
(an HTTP date is GMT: one written without a zone is read as GMT; one that cannot be read is
unknown).

What is read is capped: ``MAX_OBJECT_BYTES`` per file (an endless body is cut there, as an
``UpstreamError``), ``MAX_SITE_BYTES`` over the whole site; a folder's files are read only
when they are regular files inside it. JSON nested beyond the decoder's depth is a
``ValueError`` like any other JSON that cannot be read.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from arena_core.errors import ConfigurationError, UpstreamError

ABSENT = (403, 404)
TIMEOUT = httpx.Timeout(30.0)
MAX_OBJECT_BYTES = 256 * 1024 * 1024  # one file of the site, at most
MAX_SITE_BYTES = 4 * 1024 * 1024 * 1024  # everything read from one site, at most


@dataclass(frozen=True)
class Fetched:
    body: bytes
    stored_at: datetime | None = None  # Last-Modified, over HTTP

    def json(self) -> Any:
        """The body as JSON; ``ValueError`` when it is not (nesting too deep included)."""
        try:
            return json.loads(self.body)
        except RecursionError as exc:
            raise ValueError("JSON nested too deep") from exc


class SiteReader(ABC):
    location: str

    def __init__(self) -> None:
        self.read_bytes = 0

    @abstractmethod
    def get(self, path: str) -> Fetched | None:
        """The file at ``path`` (relative to the site's root), or None when it is absent."""

    def _counted(self, size: int, what: str) -> None:
        if size > MAX_OBJECT_BYTES:
            raise UpstreamError(f"{what} is more than {MAX_OBJECT_BYTES} bytes")
        self.read_bytes += size
        if self.read_bytes > MAX_SITE_BYTES:
            raise UpstreamError(f"the site is more than {MAX_SITE_BYTES} bytes to read")


class FolderSite(SiteReader):
    def __init__(self, root: Path) -> None:
        super().__init__()
        if not root.is_dir():
            raise ConfigurationError(f"no site folder at {root}")
        self._root = root.resolve()
        self.location = str(root)

    def get(self, path: str) -> Fetched | None:
        try:
            target = (self._root / path).resolve()
        except (ValueError, OSError):  # a NUL, a loop of links
            return None
        if not target.is_relative_to(self._root):  # a hostile key in a log: never leave the site
            return None
        if not target.is_file():
            return None
        self._counted(target.stat().st_size, str(target))
        try:
            return Fetched(target.read_bytes())
        except OSError as exc:
            raise ConfigurationError(f"cannot read {target}: {exc.strerror or exc}") from exc


class HttpSite(SiteReader):
    def __init__(self, base_url: str, client: httpx.Client) -> None:
        super().__init__()
        self._base = base_url.rstrip("/") + "/"
        self._client = client
        self.location = base_url

    def get(self, path: str) -> Fetched | None:
        url = self._base + quote(path.lstrip("/"))
        try:
            with self._client.stream("GET", url) as response:
                if response.status_code in ABSENT:
                    return None
                if response.status_code != 200:
                    raise UpstreamError(f"cannot fetch {url}: HTTP {response.status_code}")
                body = self._capped(response, url)
                stored_at = _stored_at(response.headers.get("last-modified"))
        except httpx.HTTPError as exc:
            raise UpstreamError(f"cannot fetch {url}: {exc}") from exc
        return Fetched(body, stored_at)

    def _capped(self, response: httpx.Response, url: str) -> bytes:
        """The body, read no further than the caps allow (an endless body is refused)."""
        chunks, size = [], 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > MAX_OBJECT_BYTES:
                raise UpstreamError(f"{url} is more than {MAX_OBJECT_BYTES} bytes")
            chunks.append(chunk)
        self._counted(size, url)
        return b"".join(chunks)


def _stored_at(header: str | None) -> datetime | None:
    """When S3 stored the object: an HTTP date is GMT (one without a zone is read so); one
    that cannot be read is unknown."""
    if not header:
        return None
    try:
        stored = parsedate_to_datetime(header)
    except (TypeError, ValueError, OverflowError, IndexError):
        return None
    return stored.replace(tzinfo=UTC) if stored.tzinfo is None else stored


def open_site(location: str, client: httpx.Client | None = None) -> SiteReader:
    """A reader for ``location``: an http(s) URL, else a folder."""
    if location.startswith(("http://", "https://")):
        return HttpSite(location, client or httpx.Client(timeout=TIMEOUT, follow_redirects=True))
    return FolderSite(Path(location))
