"""The change-only writer both site publishers build on: a manifest of what was published, a lease
so that one publication writes at a time, and repair of what was changed out of band.

Every publisher is a ``Bucket`` (get, conditional put, listing); this module does the rest:

- **The root** (``ROOT``): one small object read and written by every publication. Its first line
  is a header (the lease, the manifest's part names and its ``hot`` part inline: the files every
  ten-minute tick changes), the rest the publication's own state. Holding a session writes it
  back with the lease taken (a conditional write on the version read); committing writes it with
  the lease released (conditional on the version the session wrote). So a tick that publishes
  writes the root twice, as before it wrote its carried state and its manifest's hot part, and
  two publications can never both hold the lease. A session opened without holding (a tick,
  until it knows something is due) has only read the root: one that finds nothing due releases
  it having written nothing.
- **The manifest** (``path -> (sha256, etag)``), in parts by folder beside the root, each read on
  first use: what changed is told by the digest, what the bucket holds by the ETag the bucket
  gave the upload, which a listing returns (repair).
- **Bookkeeping objects** under ``INTERNAL`` are written as given and never recorded: the
  publication's state links them by digest.

A root or part that cannot be read counts as empty: everything it described is published again.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from contextlib import suppress
from datetime import datetime, timedelta

from arena_core.errors import ArenaError, ConflictError, InvalidIdError, PublicationBusyError
from arena_core.ports.publisher import (
    INTERNAL,
    LazyFile,
    Opened,
    PublishReport,
    PublishSession,
    SitePublisher,
    digest,
    is_internal,
    site_key,
)

ROOT = f"{INTERNAL}publication"  # the root: lease, manifest index and hot part, state
PARTS = f"{INTERNAL}published/"  # the manifest's other parts
HOT = "hot"
# The folders whose files a tick may change: one part, kept inline in the root.
HOT_FOLDERS = frozenset(("", "data", "data/live", "static"))
FORMAT = 2
Entry = tuple[str, str]  # (sha256 of the body, the ETag the bucket gave it)


class Bucket(ABC):
    """The primitive a publisher provides: objects by key, written whole."""

    @property
    @abstractmethod
    def identity(self) -> str: ...

    @abstractmethod
    def get(self, key: str) -> tuple[bytes, str] | None:
        """The object and its ETag, or None when absent."""

    @abstractmethod
    def put(self, key: str, body: bytes, *, match: str | None = None, absent: bool = False) -> str:
        """Write the object (only if its ETag is ``match``, or only if ``absent``): its new
        ETag. ``ConflictError`` when the condition does not hold."""

    @abstractmethod
    def listing(self) -> dict[str, str]:
        """Every readers' object (not the bookkeeping) with its ETag."""


def part_of(path: str) -> str:
    """The part a path's entry is kept in: ``HOT`` for the folders a tick changes, else the
    path's first folder (its first two under ``data/``, whose subfolders grow apart: each
    cohort's tables, each week's universe)."""
    folder = path.rpartition("/")[0]
    if folder in HOT_FOLDERS:
        return HOT
    segments = folder.split("/")
    return "/".join(segments[: 2 if segments[0] == "data" else 1])


def part_key(name: str) -> str:
    return f"{PARTS}{name.replace('/', '~')}.json"


def _entries(found: object) -> dict[str, Entry] | None:
    """A part as written, or None when it is not one."""
    if not isinstance(found, dict):
        return None
    entries: dict[str, Entry] = {}
    for path, entry in found.items():
        if not (isinstance(entry, list) and len(entry) == 2 and all(type(e) is str for e in entry)):
            return None
        entries[path] = (entry[0], entry[1])
    return entries


def _json(body: bytes | None) -> object:
    try:
        return None if body is None else json.loads(body)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None


class Root:
    """The root's header and the state after it; an unreadable one reads as empty."""

    def __init__(self, body: bytes | None) -> None:
        head, _, self.state = (body or b"").partition(b"\n")
        found = _json(head) if body else None
        valid = isinstance(found, dict) and found.get("format") == FORMAT
        header: dict[str, object] = found if valid and isinstance(found, dict) else {}
        self.readable = body is None or valid
        parts = header.get("parts")
        self.parts = {p for p in parts if isinstance(p, str)} if isinstance(parts, list) else set()
        self.hot = _entries(header.get("hot")) or {}
        lease = header.get("lease")
        self.lease = lease if isinstance(lease, dict) else None
        if not valid:
            self.state = b""

    def holder(self, now: datetime) -> str | None:
        """Who holds the lease at ``now`` (None: nobody, or expired)."""
        if self.lease is None:
            return None
        try:
            until = datetime.fromisoformat(str(self.lease.get("until")))
            return str(self.lease.get("owner")) if now < until else None
        except (ValueError, TypeError):
            return None

    def body(self, lease: Mapping[str, str] | None, state: bytes) -> bytes:
        header = {"format": FORMAT, "lease": lease, "parts": sorted(self.parts), "hot": self.hot}
        return json.dumps(header, sort_keys=True, separators=(",", ":")).encode() + b"\n" + state


class ManifestSession(PublishSession):
    def __init__(
        self, bucket: Bucket, owner: str, now: datetime, lease: timedelta, *, hold: bool = True
    ) -> None:
        self._bucket = bucket
        found = bucket.get(ROOT)
        self._root = Root(found[0] if found else None)
        self._read_etag = found[1] if found else None  # the root's version this session read
        holder = self._root.holder(now)
        if holder is not None and holder != owner:
            raise PublicationBusyError(f"the site is being published by {holder}")
        expired = self._root.lease.get("owner") if self._root.lease else None
        self._lease = {"owner": owner, "until": (now + lease).isoformat()}
        self._etag: str | None = None  # the root's version this session wrote: it holds
        if hold:
            self.hold()
        notes = [] if self._root.readable else ["the root could not be read: published anew"]
        state = self._root.state or None
        self._opened = Opened(state, str(expired) if expired and expired != owner else None, notes)
        self._parts: dict[str, dict[str, Entry]] = {HOT: self._root.hot}
        self._touched: set[str] = set()

    @property
    def opened(self) -> Opened:
        return self._opened

    def hold(self) -> None:
        if self._etag is not None:
            return
        try:
            self._etag = self._bucket.put(
                ROOT,
                self._root.body(self._lease, self._root.state),
                match=self._read_etag,
                absent=self._read_etag is None,
            )
        except ConflictError as exc:
            raise PublicationBusyError("another publication took the site's lease") from exc

    def read(self, key: str) -> bytes | None:
        if not is_internal(key):
            raise InvalidIdError(f"a publication reads no readers' file: {key[:80]!r}")
        found = self._bucket.get(key)
        return found[0] if found else None

    def _part(self, name: str) -> dict[str, Entry]:
        if name not in self._parts:
            found = self._bucket.get(part_key(name)) if name in self._root.parts else None
            self._parts[name] = _entries(_json(found[0] if found else None)) or {}
        return self._parts[name]

    def _entry(self, path: str) -> Entry | None:
        return self._part(part_of(path)).get(path)

    def known(self, path: str) -> str | None:
        entry = self._entry(path)
        return entry[0] if entry else None

    def publish(self, files: Iterable[LazyFile], *, repair: bool = False) -> PublishReport:
        self.hold()  # nothing is written without the lease
        every = list(files)
        held = self._bucket.listing() if repair else None
        writes: dict[str, tuple[bytes, bool]] = {}  # path -> (body, repaired)
        for file in every:
            check(file.path)
            written = self._write_of(file, held)
            if written is not None:
                writes[file.path] = written
        order = sorted(writes, key=lambda path: (is_internal(path), path))
        for path in order:
            body, _ = writes[path]
            etag = self._bucket.put(path, body)
            if not is_internal(path):
                self._part(part_of(path))[path] = (digest(body), etag)
                self._touched.add(part_of(path))
        for name in sorted(self._touched - {HOT}):
            self._bucket.put(part_key(name), json.dumps(self._parts[name], sort_keys=True).encode())
            self._root.parts.add(name)
        self._touched &= {HOT}
        repaired = tuple(p for p in order if writes[p][1])
        checked = len(every) if held is not None else 0
        return PublishReport(tuple(order), len(every) - len(order), repaired, checked)

    def _write_of(
        self, file: LazyFile, held: Mapping[str, str] | None
    ) -> tuple[bytes, bool] | None:
        """The body to write and whether it repairs the bucket, or None: nothing to write."""
        if is_internal(file.path):
            return file.body(), False
        entry = self._entry(file.path)
        damaged = held is not None and entry is not None and held.get(file.path) != entry[1]
        if entry is not None and not damaged:
            if file.kept or file.digest == entry[0]:
                return None
            body = file.body()
            return (body, False) if digest(body) != entry[0] else None
        try:
            return file.body(), damaged
        except ArenaError:
            if file.kept:  # a kept file whose source cannot be read now: left as it is
                return None
            raise

    def commit(self, state: bytes) -> None:
        self.hold()
        try:
            self._etag = self._bucket.put(ROOT, self._root.body(None, state), match=self._etag)
        except ConflictError as exc:
            raise PublicationBusyError("the site's lease was taken over") from exc

    def release(self) -> None:
        if self._etag is None:  # never held: nothing was written, nothing to give up
            return
        with suppress(ConflictError):  # taken over already: nothing of it is recorded
            self._bucket.put(ROOT, self._root.body(None, self._root.state), match=self._etag)


def check(path: str) -> None:
    """Refuse a key before anything is written (``InvalidIdError``): one that is not a site
    key, or one of the manifest's own."""
    site_key(path)
    if path == ROOT or path.startswith(PARTS):
        raise InvalidIdError(f"the key {path[:80]!r} is the manifest's")


class ManifestPublisher(SitePublisher):
    """A publisher over a ``Bucket``."""

    def __init__(self, bucket: Bucket) -> None:
        self.bucket = bucket

    @property
    def identity(self) -> str:
        return self.bucket.identity

    def open(
        self, owner: str, now: datetime, lease: timedelta, *, hold: bool = True
    ) -> ManifestSession:
        return ManifestSession(self.bucket, owner, now, lease, hold=hold)

    def get(self, path: str) -> bytes | None:
        found = self.bucket.get(path)
        return found[0] if found else None
