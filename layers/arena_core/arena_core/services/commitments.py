"""Publishing commitments: a decision's when it completes, a run's root when the run ends,
and the log that lists them (``arena_core.domain.commitment_log`` has the layout).

Decide publishes its decision's canonical record before it marks the decision succeeded, so a
succeeded decision always has its commitment object. Finalize, the log's one writer (its role
alone may write it), seals the run: one object per run with the Merkle root of its decisions'
commitments, written once, then lists every committed object the log does not list yet, and
names (without stopping) any it cannot read. Appending is a conditional replace, retried when
another writer got there first; the bytes already in the log are never changed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from arena_core.domain.commitment_log import (
    DECISIONS_PREFIX,
    LOG_KEY,
    RUNS_PREFIX,
    LogEntry,
    RunSeal,
    appended,
    decision_key,
    logged_keys,
    run_key,
)
from arena_core.domain.commitments import DecisionCommitment, sha256_hex
from arena_core.domain.decision_status import DecisionStatus
from arena_core.domain.decisions import Consultation
from arena_core.errors import ConflictError, PersistenceError, RunRequestError
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.commitment_store import CommitmentStore
from arena_core.ports.decision_store import DecisionStore

LOG_ATTEMPTS = 5  # conditional appends tried before leaving the lines to the next writer
FUTURE_SKEW = timedelta(minutes=1)  # a run time later than now by more than this is refused


def with_hashes(consultation: Consultation, blobs: BlobStore) -> Consultation:
    """The consultation with the SHA-256 of its prompt and replies. They are taken when the
    blobs are stored; only a checkpoint saved before hashes were kept reads its blobs again."""
    if consultation.prompt_sha256 is not None and all(
        r.body_sha256 is not None for r in consultation.responses
    ):
        return consultation
    replies = tuple(
        r
        if r.body_sha256 is not None
        else r.model_copy(update={"body_sha256": sha256_hex(blobs.get(r.response_ref))})
        for r in consultation.responses
    )
    prompt = consultation.prompt_sha256 or sha256_hex(blobs.get(consultation.prompt_ref))
    return consultation.model_copy(update={"prompt_sha256": prompt, "responses": replies})


def publish_decision(store: CommitmentStore, commitment: DecisionCommitment) -> LogEntry:
    """Write the decision's canonical record under its own hash. The key names its content, so
    an existing object holds these very bytes (the same completion, written by a retry)."""
    entry = LogEntry.for_decision(commitment)
    store.create(entry.key, commitment.canonical())
    return entry


def append_to_log(store: CommitmentStore, entries: Sequence[LogEntry]) -> int:
    """Append the entries the log does not list yet; how many were appended."""
    for _ in range(LOG_ATTEMPTS):
        current = store.read(LOG_KEY)
        body = current.body if current else b""
        extended = appended(body, entries)
        if extended == body:
            return 0
        try:
            store.replace(LOG_KEY, extended, expected=current.tag if current else None)
        except ConflictError:
            continue  # another writer appended first: read its lines and try again
        return len(logged_keys(extended)) - len(logged_keys(body))
    raise ConflictError(f"{LOG_KEY} kept changing over {LOG_ATTEMPTS} attempts")


@dataclass(frozen=True)
class Unlisted:
    """The committed objects the log does not list yet, and those that cannot be read (so
    cannot be listed): reported, never a reason to stop sealing."""

    entries: list[LogEntry]
    unreadable: tuple[str, ...] = ()


def unlisted_entries(store: CommitmentStore) -> Unlisted:
    """The committed objects the log does not list (a decision whose line was not appended,
    a run sealed by a Finalize that then failed), read back from the store. One object that
    cannot be read (not JSON, not a record, not at a committed key) is skipped and named:
    under Object Lock it stays forever, and it must not stop every later Finalize."""
    current = store.read(LOG_KEY)
    known = logged_keys(current.body) if current else set()
    found, unreadable = [], []
    for key in [*store.keys(DECISIONS_PREFIX), *store.keys(RUNS_PREFIX)]:
        if key in known or not key.endswith(".json"):
            continue
        stored = store.read(key)
        if stored is None:
            continue
        try:
            found.append(_entry(key, stored.body))
        except PersistenceError:
            unreadable.append(key)
    return Unlisted(found, tuple(unreadable))


def _entry(key: str, body: bytes) -> LogEntry:
    """The log line of a committed object, from its bytes (the hash is of the bytes as
    stored, whatever the key says: a reader checks one against the other). A decision's
    object must sit at its own key (``decision_key`` of its id and hash)."""
    try:
        document = json.loads(body)
        if key.startswith(RUNS_PREFIX):
            return LogEntry.for_run(key, sha256_hex(body), document)
        decision_id, digest = str(document["decision_id"]), sha256_hex(body)
        if decision_key(decision_id, digest) != key:
            raise ValueError(f"it belongs at {decision_key(decision_id, digest)}")
        return LogEntry(
            "decision", key, digest, str(document["completed_at"]), decision_id=decision_id
        )
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise PersistenceError(f"committed object {key} cannot be read: {exc}") from exc


@dataclass(frozen=True)
class SealReport:
    key: str
    root: str
    created: bool  # False: a retried Finalize found the run's object already written
    logged: int  # log lines appended now
    unreadable: tuple[str, ...] = ()  # committed objects skipped: they cannot be read


def seal_run(
    decisions: DecisionStore,
    store: CommitmentStore,
    *,
    run_id: str,
    run_at: datetime,
    decision_ids: Sequence[str],
    now: datetime,
) -> SealReport | None:
    """Write the run's root over its succeeded decisions (None when none has a commitment),
    then list every committed object the log is missing. A run time in the future is refused
    before anything is written: under Object Lock its record would be permanent."""
    if run_at > now + FUTURE_SKEW:
        raise RunRequestError(f"run time {run_at.isoformat()} is in the future")
    leaves = []
    for decision_id in sorted(set(decision_ids)):
        record = decisions.get_decision(decision_id)
        outcome = record.outcome if record else None
        if record and record.status is DecisionStatus.SUCCEEDED and outcome and outcome.commitment:
            leaves.append((decision_id, outcome.commitment))
    if not leaves:
        return None
    seal = RunSeal(run_id=run_id, run_at=run_at, sealed_at=now, leaves=tuple(leaves))
    key = run_key(run_at, run_id)
    created = store.create(key, seal.canonical())
    root = seal.root
    if not created:  # the first seal of this run stands
        existing = store.read(key)
        root = str(json.loads(existing.body)["root"]) if existing else root
    unlisted = unlisted_entries(store)
    logged = append_to_log(store, unlisted.entries)
    return SealReport(key, root, created, logged, unlisted.unreadable)
