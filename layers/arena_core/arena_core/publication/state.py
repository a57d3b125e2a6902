"""The publication's state: what one publication carries to the next, in one payload (the root's,
``adapters/manifest.py``) that links every other bookkeeping object by its digest.

- ``done``: when each scope last completed (``publication/plan.py`` makes up a missed one);
- ``carried``: what every tick reads and changes (``publication/carried.py``);
- ``links``: the digest of each bookkeeping object the state was written with (the history of
  scores, the memo's shards, each sealed cohort, the growing markets table): an object that is
  not the one linked (a publication failed between writing it and the root) is not read;
- ``reports``: the last publications' explanations (``arena status`` shows them).

A state that cannot be read, is of another version, or was written for another site (copied
from another deployment) is empty: the publication reads and computes everything, as a fresh one.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable
from datetime import datetime
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arena_core.ports.publisher import INTERNAL, digest
from arena_core.publication.carried import Carried, in_bucket_order

VERSION = 6  # 6: the feed keeps the markets a reasoning names
PREFIX = f"{INTERNAL}state/"
REPORTS_KEPT = 20


def object_key(name: str) -> str:
    """The key of a bookkeeping object (``history``, ``memo/board``, ``sealed/<cohort>``)."""
    return f"{PREFIX}{name}.gz"


class Report(BaseModel):
    """One publication as ``arena status`` lists it (its paths bounded)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    at: datetime
    scope: str
    why: str
    uploaded: int
    paths: list[str]  # the first uploaded paths
    misses: list[str]  # "slot: reason"
    repaired: int = 0


class State(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = VERSION
    identity: str = ""
    done: dict[str, datetime] = {}
    carried: Carried = Field(default_factory=Carried)
    links: dict[str, str] = {}  # object name -> the digest of the object as written
    reports: list[Report] = []

    @classmethod
    def load(cls, payload: bytes | None, identity: str) -> tuple[State, str | None]:
        """The state of ``payload`` and, when it could not be taken, why."""
        if not payload:
            return cls(identity=identity), None
        kept = _kept_state(payload, identity)
        if kept is not None:
            return kept, None
        try:
            state = cls.model_validate_json(gzip.decompress(payload))
        except (OSError, EOFError, ValueError, ValidationError):
            return cls(identity=identity), "the state could not be read"
        if state.version != VERSION:
            return cls(identity=identity), f"a state of version {state.version}"
        if state.identity != identity:
            return cls(identity=identity), "a state written for another site"
        _keep(payload, state)
        return state, None

    def dump(self) -> bytes:
        """Deterministic bytes (no time in the gzip header), at the fastest level: written by
        every tick."""
        payload = gzip.compress(self.model_dump_json().encode(), compresslevel=1, mtime=0)
        if self.version == VERSION and in_bucket_order(self.carried.series):
            _keep(payload, self)  # what reading these bytes back would give
        return payload

    def report(self, report: Report) -> None:
        self.reports = [*self.reports, report][-REPORTS_KEPT:]


class Objects:
    """The bookkeeping objects a state links: each read at most once, and only if it is the one
    linked; each written (with its link) when it changed."""

    def __init__(self, state: State, read: Callable[[str], bytes | None]) -> None:
        self._state = state
        self._read = read
        self._changed: dict[str, bytes] = {}
        self._read_back: dict[str, bytes | None] = {}
        self._lost: set[str] = set()  # linked, but absent or another object: written again

    def get(self, name: str) -> bytes | None:
        """The object as linked, or None (absent, never written, or not the one linked)."""
        if name in self._changed:
            return self._changed[name]
        if name not in self._read_back:
            linked = self._state.links.get(name)
            body = self._read(object_key(name)) if linked is not None else None
            if linked is not None and (body is None or digest(body) != linked):
                self._lost.add(name)
                body = None
            self._read_back[name] = body
        return self._read_back[name]

    def put(self, name: str, body: bytes) -> None:
        if self._state.links.get(name) != digest(body) or name in self._lost:
            self._changed[name] = body
            self._state.links[name] = digest(body)
            self._lost.discard(name)

    def written(self) -> dict[str, bytes]:
        """The objects to write, by key (before the state that links them)."""
        return {object_key(name): body for name, body in self._changed.items()}


def gzipped(text: bytes) -> bytes:
    return gzip.compress(text, compresslevel=6, mtime=0)


def gunzipped(body: bytes | None) -> bytes | None:
    if body is None:
        return None
    try:
        return gzip.decompress(body)
    except (OSError, EOFError):
        return None


# The state this process last read or wrote, with its payload: the next tick (a warm Lambda's,
# the local demo's) reads back the bytes the last one wrote, and parsing them again (a week of
# hourly points for every family) was a tick's largest cost. Kept as a copy, so what a
# publication changes in the state it was given never reaches the kept one.
_kept: tuple[bytes, str, State] | None = None


def _keep(payload: bytes, state: State) -> None:
    global _kept  # noqa: PLW0603 - one per process, as the payload it stands for
    _kept = (payload, state.identity, _thawed(state))


def _kept_state(payload: bytes, identity: str) -> State | None:
    """A copy of the kept state when ``payload`` is the one it was read from or written as."""
    kept = _kept
    if kept is None or kept[1] != identity or kept[0] != payload:
        return None
    state = _thawed(kept[2])
    return state if isinstance(state, State) else None


def _thawed(value: Any) -> Any:
    """A copy of every mutable container in ``value`` (dicts, lists, models that are not
    frozen), sharing what cannot change (frozen models, scalars)."""
    if isinstance(value, BaseModel) and not value.model_config.get("frozen"):
        fields = {name: _thawed(getattr(value, name)) for name in type(value).model_fields}
        return type(value).model_construct(set(value.model_fields_set), **fields)
    if isinstance(value, dict):
        if _all_shared({type(member) for member in value.values()}):
            return dict(value)
        return {key: _thawed(member) for key, member in value.items()}
    if isinstance(value, list):
        # a series of a week of points: one look at its members' kinds, not one call each
        if _all_shared({type(member) for member in value}):
            return list(value)
        return [_thawed(member) for member in value]
    return value


def _all_shared(kinds: set[type]) -> bool:
    return all(_shared(kind) for kind in kinds)


@cache
def _shared(kind: type) -> bool:
    """Whether ``_thawed`` hands a value of this kind out as it is (nothing in it can change)."""
    if issubclass(kind, BaseModel):
        return bool(kind.model_config.get("frozen"))
    return not issubclass(kind, (dict, list))
