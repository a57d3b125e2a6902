"""The one memo of the publication: what is recomputed, and why.

``Memo.get(slot, address, inputs, compute)`` returns the value kept under ``address`` when it
was computed by this code from equal inputs (and has not expired), else computes it, keeps it and
records why. One key rule: the code's digest first, then the inputs' (any JSON-able value,
digested canonically). One codec per slot kind, registered once (``slot``), turns a value into
text and back; a text it cannot read is a miss ("unreadable"), never an exception. Every hit and
miss is recorded with its reason, so a publication can say why it recomputed what it did.

``Memo.files`` keeps the digests of files a render makes: on a hit the files are handed to the
writer with their digests and a body made only if the writer needs it (a file missing from the
site or changed out of band).

Values are kept in shards (``board``; ``cohort/<id>`` for a cohort's pages), each one
bookkeeping object read when one of its addresses is first asked for and written when one of
its entries changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, Generic, TypeVar

from arena_core.code import code_digest
from arena_core.errors import ArenaError
from arena_core.ports.publisher import LazyFile, digest
from arena_core.publication.state import Objects, gunzipped, gzipped

T = TypeVar("T")
_CODECS: dict[str, Slot[Any]] = {}
NEVER = "-"


@dataclass(frozen=True)
class Slot(Generic[T]):
    """A kind of kept value and its codec (``encode`` to text, ``decode`` back, raising
    ``ValueError``, ``TypeError``, ``KeyError`` or an ``ArenaError`` on a text it cannot read)."""

    kind: str
    encode: Callable[[T], str]
    decode: Callable[[str], T]


def slot(kind: str, encode: Callable[[T], str], decode: Callable[[str], T]) -> Slot[T]:
    """Register the codec of a kind of kept value (once: a second codec would read the first's
    texts)."""
    if kind in _CODECS:
        raise ValueError(f"the slot {kind!r} is registered already")
    found = Slot(kind, encode, decode)
    _CODECS[kind] = found
    return found


def _dump_digests(found: dict[str, str]) -> str:
    return json.dumps(found, sort_keys=True, separators=(",", ":"))


def _load_digests(text: str) -> dict[str, str]:
    found = json.loads(text)
    if not isinstance(found, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and len(v) == 64 for k, v in found.items()
    ):
        raise TypeError("not a mapping of paths to digests")
    return found


FILES = slot("files", _dump_digests, _load_digests)


def inputs_digest(inputs: object) -> str:
    text = json.dumps(inputs, default=str, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def shard_of(address: str) -> str:
    head, _, rest = address.partition("/")
    return f"{head}/{rest.partition('/')[0]}" if head == "cohort" else head


@dataclass(frozen=True)
class Entry:
    kind: str
    code: str
    inputs: str
    until: str  # ISO 8601, or NEVER
    text: str


class Memo:
    def __init__(self, objects: Objects, now: datetime) -> None:
        self._objects = objects
        self._now = now
        self._shards: dict[str, dict[str, Entry]] = {}
        self._values: dict[tuple[str, str], object] = {}  # by address and inputs
        self._changed: set[str] = set()
        self.misses: list[tuple[str, str]] = []  # (address, reason)
        self.hits: list[str] = []

    def get(
        self,
        found: Slot[T],
        address: str,
        inputs: object,
        compute: Callable[[], T],
        *,
        until: Callable[[T], datetime | None] | None = None,
        keep: Callable[[T], bool] | None = None,
    ) -> T:
        """The value kept under ``address`` for ``inputs``, else ``compute()``'s, kept (until
        ``until`` of it, if given; unless ``keep`` of it is false: computed from reads still
        catching up)."""
        key = inputs_digest(inputs)
        if (address, key) in self._values:
            return self._values[(address, key)]  # type: ignore[return-value]
        entry = self._shard(shard_of(address)).get(address)
        reason = self._stale(entry, found, key)
        if reason is None and entry is not None:
            try:
                value = found.decode(entry.text)
                self.hits.append(address)
                self._values[(address, key)] = value
                return value
            except (ValueError, TypeError, KeyError, ArenaError):
                reason = "unreadable"
        value = compute()
        if keep is not None and not keep(value):
            self.misses.append((address, f"{reason or 'absent'} (not kept: reads catching up)"))
            return value
        self.misses.append((address, reason or "absent"))
        expires = until(value) if until else None
        self._keep(
            address, Entry(found.kind, code_digest(), key, _iso(expires), found.encode(value))
        )
        self._values[(address, key)] = value
        return value

    def put(self, found: Slot[T], address: str, inputs: object, value: T) -> None:
        """Keep ``value``, computed where its inputs are read (a site-wide publication's), for
        the publications that do not read them."""
        key = inputs_digest(inputs)
        entry = Entry(found.kind, code_digest(), key, NEVER, found.encode(value))
        if self._shard(shard_of(address)).get(address) != entry:
            self._keep(address, entry)
        self._values[(address, key)] = value

    def files(
        self, address: str, inputs: object, render: Callable[[], dict[str, bytes]]
    ) -> list[LazyFile]:
        """The files ``render`` makes from ``inputs``, with their digests as kept (rendered
        once, and only if a body is needed)."""
        made = cache(render)
        digests = self.get(
            FILES, address, inputs, lambda: {p: digest(b) for p, b in made().items()}
        )
        return [LazyFile(p, _body(made, p), d) for p, d in sorted(digests.items())]

    def _stale(self, entry: Entry | None, found: Slot[Any], key: str) -> str | None:
        if entry is None:
            return "absent"
        if entry.code != code_digest():
            return "new code"
        if entry.kind != found.kind or entry.inputs != key:
            return "inputs changed"
        if entry.until != NEVER and self._now >= datetime.fromisoformat(entry.until):
            return f"expired at {entry.until}"
        return None

    def _keep(self, address: str, entry: Entry) -> None:
        shard = shard_of(address)
        self._shard(shard)[address] = entry
        self._changed.add(shard)

    def _shard(self, name: str) -> dict[str, Entry]:
        if name not in self._shards:
            self._shards[name] = read_shard(gunzipped(self._objects.get(f"memo/{name}")))
        return self._shards[name]

    def flush(self) -> None:
        """Hand the changed shards to the state's objects."""
        for name in sorted(self._changed):
            self._objects.put(f"memo/{name}", gzipped(shard_body(self._shards[name])))
        self._changed.clear()


def _body(made: Callable[[], dict[str, bytes]], path: str) -> Callable[[], bytes]:
    return lambda: made()[path]


def _iso(moment: datetime | None) -> str:
    return moment.isoformat() if moment is not None else NEVER


def shard_body(entries: dict[str, Entry]) -> bytes:
    """A header line (each entry's address, kind, code, inputs, expiry and the length in bytes
    of its text), then the texts: read back by cutting them out, not by unescaping them (they
    are JSON themselves, a year's board among them)."""
    names = sorted(entries)
    texts = [entries[n].text.encode() for n in names]
    header = [
        [n, entries[n].kind, entries[n].code, entries[n].inputs, entries[n].until, len(t)]
        for n, t in zip(names, texts, strict=True)
    ]
    return json.dumps(header, separators=(",", ":")).encode() + b"\n" + b"".join(texts)


def read_shard(body: bytes | None) -> dict[str, Entry]:
    """A shard's entries, or none when it cannot be read (each is then computed again)."""
    if not body:
        return {}
    try:
        head, _, texts = body.partition(b"\n")
        found: dict[str, Entry] = {}
        at = 0
        for name, kind, code, key, until, length in json.loads(head):
            fields = (name, kind, code, key, until)
            if not all(type(f) is str for f in fields) or type(length) is not int:
                return {}
            if until != NEVER:
                datetime.fromisoformat(until)
            if length < 0 or at + length > len(texts):
                return {}
            found[name] = Entry(kind, code, key, until, texts[at : at + length].decode())
            at += length
        return found if at == len(texts) else {}
    except (ValueError, TypeError, RecursionError):  # JSON and unpacking errors are ValueErrors
        return {}
