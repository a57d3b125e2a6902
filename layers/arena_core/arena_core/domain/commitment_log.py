"""The public commitments log: where commitments live on the site, a run's Merkle root, and
the log's lines. Pure: the store and the services that write it are elsewhere.

Layout under the site's ``commitments/`` folder (public, served like every page):

- ``commitments/decisions/<decision_id>/<sha256>.json``: a decision's canonical record, whose
  SHA-256 is the name (a retried completion has another time, so another name: nothing is
  ever overwritten);
- ``commitments/runs/<run_at>-<run_id>.json``: one per decision run (its execution), written
  once by Finalize: every decision of the run that succeeded with its commitment, in
  decision-id order, and their Merkle root;
- ``commitments/log.jsonl``: one line per object above, in the order they were logged; lines are
  only ever appended, so each version of the log begins with the bytes of the one before.

The Merkle root: leaves are the commitments' 32-byte digests in decision-id order; each level
hashes adjacent pairs, SHA-256(left || right); a last node without a partner is promoted
unchanged; the root is the single node left (one leaf: the leaf itself).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from arena_core.domain import ids
from arena_core.domain.commitments import (
    RECORD_VERSION,
    DecisionCommitment,
    canonical_json,
    timestamp,
)
from arena_core.errors import InvalidIdError

DECISIONS_PREFIX = "commitments/decisions/"
RUNS_PREFIX = "commitments/runs/"
LOG_KEY = "commitments/log.jsonl"
HEX_DIGEST = re.compile(r"[0-9a-f]{64}")


def decision_key(decision_id: str, sha256: str) -> str:
    """The key of a decision's committed record; ``InvalidIdError`` (a ``ValueError``) for
    anything but a decision id and a hex digest, matched whole."""
    ids.decision_id(decision_id)
    if not isinstance(sha256, str) or HEX_DIGEST.fullmatch(sha256) is None:
        raise InvalidIdError(f"not a SHA-256 hex digest: {str(sha256)[:80]!r}")
    return f"{DECISIONS_PREFIX}{decision_id}/{sha256}.json"


EXECUTION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}")  # Step Functions', bounded


def run_key(run_at: datetime, run_id: str) -> str:
    """Unique per run: its time and its execution's name. Distinct names give distinct keys
    (``run-1``, ``run:1``, ``run-1-`` and ``run-1.`` are four runs): the name is kept as it is
    but for ``:``, written ``~`` (a character no execution name holds). Anything but an
    execution name is refused (``InvalidIdError``)."""
    if not isinstance(run_id, str) or EXECUTION_NAME.fullmatch(run_id) is None:
        raise InvalidIdError(f"not an execution name: {str(run_id)[:80]!r}")
    return f"{RUNS_PREFIX}{run_at.strftime('%Y%m%dT%H%M%SZ')}-{run_id.replace(':', '~')}.json"


def merkle_root(leaves: Sequence[str]) -> str:
    """The root over hex digests, in the order given (see the module docstring)."""
    if not leaves:
        raise ValueError("a Merkle root needs at least one leaf")
    level = [bytes.fromhex(leaf) for leaf in leaves]
    while len(level) > 1:
        paired = [
            hashlib.sha256(level[i] + level[i + 1]).digest() for i in range(0, len(level) - 1, 2)
        ]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0].hex()


@dataclass(frozen=True)
class RunSeal:
    """A decision run's commitment: its decisions' commitments and their root."""

    run_id: str
    run_at: datetime
    sealed_at: datetime
    leaves: tuple[tuple[str, str], ...]  # (decision id, commitment), in decision-id order

    @property
    def root(self) -> str:
        return merkle_root([commitment for _, commitment in self.leaves])

    def document(self) -> dict[str, Any]:
        return {
            "version": RECORD_VERSION,
            "run_id": self.run_id,
            "run_at": timestamp(self.run_at),
            "sealed_at": timestamp(self.sealed_at),
            "leaves": [{"decision_id": d, "commitment": c} for d, c in self.leaves],
            "root": self.root,
        }

    def canonical(self) -> bytes:
        return canonical_json(self.document())


@dataclass(frozen=True)
class LogEntry:
    """One line of the log: an object's key, the SHA-256 of its bytes and what it commits.
    ``at`` orders new lines: a decision's completion time, a run's sealing time."""

    kind: str  # "decision" or "run"
    key: str
    sha256: str
    at: str
    decision_id: str | None = None
    run_id: str | None = None
    root: str | None = None

    @classmethod
    def for_decision(cls, commitment: DecisionCommitment) -> LogEntry:
        digest = commitment.sha256
        return cls(
            "decision",
            decision_key(commitment.decision_id, digest),
            digest,
            timestamp(commitment.completed_at),
            decision_id=commitment.decision_id,
        )

    @classmethod
    def for_run(cls, key: str, sha256: str, document: dict[str, Any]) -> LogEntry:
        return cls(
            "run",
            key,
            sha256,
            str(document["sealed_at"]),
            run_id=str(document["run_id"]),
            root=str(document["root"]),
        )

    def line(self) -> bytes:
        fields = {
            "kind": self.kind,
            "key": self.key,
            "sha256": self.sha256,
            "at": self.at,
            "decision_id": self.decision_id,
            "run_id": self.run_id,
            "root": self.root,
        }
        return canonical_json({k: v for k, v in fields.items() if v is not None}) + b"\n"

    @classmethod
    def parse(cls, line: str) -> LogEntry:
        """One line; ``ValueError`` when it is not a log entry (every field text, the
        optional ones absent or text; nesting, however deep, is no entry)."""
        try:
            raw = json.loads(line)
            fields = {name: raw[name] for name in ("kind", "key", "sha256", "at")}
            optional = {name: raw.get(name) for name in ("decision_id", "run_id", "root")}
            if not all(isinstance(v, str) for v in fields.values()) or not all(
                v is None or isinstance(v, str) for v in optional.values()
            ):
                raise TypeError("a field is not text")
            return cls(**fields, **optional)
        except (KeyError, TypeError, ValueError, RecursionError) as exc:
            raise ValueError(f"not a log entry: {line[:120]!r}") from exc


def log_lines(body: bytes) -> list[str]:
    """The non-empty lines of a log."""
    return [line for line in body.decode("utf-8", "replace").splitlines() if line.strip()]


def logged_keys(body: bytes) -> set[str]:
    """The keys a log already lists (a line that cannot be read lists nothing)."""
    keys = set()
    for line in log_lines(body):
        try:
            keys.add(LogEntry.parse(line).key)
        except ValueError:
            continue
    return keys


def appended(body: bytes, entries: Sequence[LogEntry]) -> bytes:
    """The log with the entries it does not list yet appended, ordered by time then key;
    the existing bytes are kept as they are."""
    known = logged_keys(body)
    new = {e.key: e for e in entries if e.key not in known}
    ordered = sorted(new.values(), key=lambda e: (e.at, e.key))
    prefix = body if not body or body.endswith(b"\n") else body + b"\n"
    return prefix + b"".join(e.line() for e in ordered)
