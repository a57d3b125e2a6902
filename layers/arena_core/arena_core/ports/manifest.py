"""What a site publisher has published: every file's digest, kept in parts.

The manifest lists every file of the site, so it grows with history (about 70 files a week:
some 3,500 after a year). Kept as one object, the leaderboard regenerated after every snapshot
read it, parsed it and wrote it again every ten minutes, for the few files it changes. It is
therefore kept in parts, by folder (``part_of``): a publication reads a part when it first
asks about one of its files, and writes back only the parts whose files changed. What every
tick writes (the home page, the site-wide tables, the live figures, the carried state) falls
in one part, ``HOT``, so a tick reads a few small objects and writes one, however long the
benchmark has run.

An index (``INDEX``) names the parts. A site published before the manifest was split has no
index: its single manifest (``MANIFEST``, or ``LEGACY_MANIFEST`` before that) is read whole,
once, and the next publication writes every part of it and the index.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping

from arena_core.errors import InvalidIdError
from arena_core.ports.publisher import INTERNAL, PublishReport, SitePublisher, digest, site_key

MANIFEST = f"{INTERNAL}manifest.json"  # the single manifest of before (read, then split)
LEGACY_MANIFEST = ".site-manifest.json"  # where sites published before that kept it
PARTS = f"{INTERNAL}manifest/"
INDEX = f"{PARTS}index.json"
HOT = "hot"
# The folders whose files a tick may change: one part, so a tick writes one object.
HOT_FOLDERS = frozenset(("", "data", "data/live", f"{INTERNAL}carried", "static"))

Read = Callable[[str], bytes | None]


def part_of(path: str) -> str:
    """The part a path's digest is kept in: ``HOT`` for the folders a tick changes, else the
    path's first folder (its first two under ``data/`` and ``_internal/``, whose subfolders
    grow apart: each cohort's tables, each week's universe, each cohort's marks)."""
    folder = path.rpartition("/")[0]
    if folder in HOT_FOLDERS:
        return HOT
    segments = folder.split("/")
    depth = 2 if segments[0] in ("data", INTERNAL.rstrip("/")) else 1
    return "/".join(segments[:depth])


def part_key(name: str) -> str:
    """The object a part is kept in (its folders joined by ``~``: one object per part)."""
    return f"{PARTS}{name.replace('/', '~')}.json"


def _parsed(body: bytes | None) -> dict[str, str] | None:
    """A part (or a manifest of before) as written, or None when it cannot be read."""
    if body is None:
        return None
    try:
        found = json.loads(body)
    except ValueError:
        return None
    if not isinstance(found, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in found.items()
    ):
        return None
    return found


class Manifest(Mapping[str, str]):
    """Path -> digest of every published file, each part read on first use (``read``: the
    publisher's). A part that cannot be read counts as empty: its files are published again,
    which changes nothing a reader sees."""

    def __init__(self, read: Read) -> None:
        self._read = read
        self._parts: dict[str, dict[str, str]] = {}
        self._names: set[str] | None = None
        self._whole = False  # read from a manifest of before: every part is written next

    def _index(self) -> set[str]:
        if self._names is None:
            body = self._read(INDEX)
            if body is None:
                before = self._read(MANIFEST) or self._read(LEGACY_MANIFEST)
                self._names = self._split(_parsed(before) if before is not None else None)
            else:
                try:
                    names = json.loads(body)
                except ValueError:
                    names = None
                valid = isinstance(names, list) and all(isinstance(n, str) for n in names)
                self._names = set(names) if valid else set()
        return self._names

    @classmethod
    def whole(cls, known: Mapping[str, str], read: Read) -> Manifest:
        """A manifest holding ``known`` whole: every part of it is written with the next
        publication (a manifest of before; or one a caller kept as a plain mapping)."""
        manifest = cls(read)
        manifest._names = manifest._split(known)
        return manifest

    def _split(self, known: Mapping[str, str] | None) -> set[str]:
        """The parts of a manifest held whole (None: a site never published)."""
        for path, hashed in (known or {}).items():
            self._parts.setdefault(part_of(path), {})[path] = hashed
        self._whole = known is not None
        return set(self._parts)

    def part(self, name: str) -> dict[str, str]:
        if name not in self._parts:
            found = _parsed(self._read(part_key(name))) if name in self._index() else None
            self._parts[name] = found or {}
        return self._parts[name]

    def __getitem__(self, path: str) -> str:
        return self.part(part_of(path))[path]

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and path in self.part(part_of(path))

    def __iter__(self) -> Iterator[str]:
        for name in sorted(self._index()):
            yield from self.part(name)

    def __len__(self) -> int:
        return sum(len(self.part(name)) for name in self._index())

    def updated(self, changed: Mapping[str, str]) -> dict[str, bytes]:
        """The manifest's objects once ``changed`` (path -> digest) is published: the parts
        its paths fall in (every part, the first time after a manifest of before) and the
        index when a part is new. Each part's paths in order, so the same part is the same
        bytes."""
        names = self._index()
        touched = {part_of(path) for path in changed}
        if self._whole:
            touched |= names
        objects = {}
        for name in sorted(touched):
            merged = {**self.part(name), **{p: d for p, d in changed.items() if part_of(p) == name}}
            self._parts[name] = merged
            objects[part_key(name)] = json.dumps(merged, sort_keys=True).encode()
        if not touched <= names or self._whole:
            self._names = names | touched
            objects[INDEX] = json.dumps(sorted(self._names)).encode()
        self._whole = False
        return objects


def manifest_of(known: Mapping[str, str], read: Read) -> Manifest:
    """``known`` as a manifest: itself when it is one, else a manifest holding it whole."""
    return known if isinstance(known, Manifest) else Manifest.whole(known, read)


def upload_order(paths: Iterable[str]) -> list[str]:
    """Readers' files first, the bookkeeping under ``INTERNAL`` last (the manifest after
    both): the bookkeeping records what was published (the carried state says which completed
    cohorts' positions are in ``data/position_returns.json``), so a publication failing
    half-way must never have written it ahead of the files it describes."""
    return sorted(paths, key=lambda path: (path.startswith(INTERNAL), path))


class ManifestPublisher(SitePublisher):
    """A change-only publisher over one primitive, ``put`` (an object written as it is):
    what changed is told by the manifest, whose parts are written after the files."""

    @abstractmethod
    def put(self, path: str, body: bytes) -> None:
        """Write one object (no manifest: what ``publish`` does for each changed file)."""

    def check(self, path: str) -> None:
        """Refuse a key before anything is written (``InvalidIdError``): one that is not a
        site key, or one of the manifest's own."""
        site_key(path)
        if path.startswith(PARTS) or path in (MANIFEST, LEGACY_MANIFEST):
            raise InvalidIdError(f"the key {path[:80]!r} is the manifest's")

    def published(self) -> Manifest:
        return Manifest(self.read)

    def publish(
        self, files: Mapping[str, bytes], known: Mapping[str, str] | None = None
    ) -> PublishReport:
        manifest = manifest_of(known, self.read) if known is not None else self.published()
        digests = {path: digest(body) for path, body in files.items()}
        changed = {path: hashed for path, hashed in digests.items() if manifest.get(path) != hashed}
        paths = upload_order(changed)
        for path in paths:  # every key checked before the first is written
            self.check(path)
        for path in paths:
            self.put(path, files[path])
        for key, body in manifest.updated(changed).items():
            self.put(key, body)
        return PublishReport(tuple(sorted(changed)), len(files) - len(changed))
