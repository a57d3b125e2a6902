"""Publishing commitments: a decision's when it completes, a run's root when the run ends,
and the log that lists them (``arena_core.domain.commitment_log`` has the layout).

Decide publishes its decision's canonical record before it marks the decision succeeded, so a
succeeded decision always has its commitment object, then appends the log line (best effort:
Finalize lists whatever a decision could not). Finalize seals the run: one object per run with
the Merkle root of its decisions' commitments, written once, then lists every committed object
the log does not list yet. Appending is a conditional replace, retried when another writer got
there first; the bytes already in the log are never changed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from arena_core.domain.commitment_log import (
    DECISIONS_PREFIX,
    LOG_KEY,
    RUNS_PREFIX,
    LogEntry,
    RunSeal,
    appended,
    logged_keys,
    run_key,
)
from arena_core.domain.commitments import DecisionCommitment, sha256_hex
from arena_core.domain.decision_status import DecisionStatus
from arena_core.domain.decisions import Consultation
from arena_core.errors import ConflictError, PersistenceError
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.commitment_store import CommitmentStore
from arena_core.ports.decision_store import DecisionStore

LOG_ATTEMPTS = 5  # conditional appends tried before leaving the lines to the next writer


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


def unlisted_entries(store: CommitmentStore) -> list[LogEntry]:
    """The committed objects the log does not list (a decision whose line was not appended,
    a run sealed by a Finalize that then failed), read back from the store."""
    current = store.read(LOG_KEY)
    known = logged_keys(current.body) if current else set()
    found = []
    for key in [*store.keys(DECISIONS_PREFIX), *store.keys(RUNS_PREFIX)]:
        if key in known or not key.endswith(".json"):
            continue
        stored = store.read(key)
        if stored is not None:
            found.append(_entry(key, stored.body))
    return found


def _entry(key: str, body: bytes) -> LogEntry:
    """The log line of a committed object, from its bytes (the hash is of the bytes as
    stored, whatever the key says: a reader checks one against the other)."""
    try:
        document = json.loads(body)
        if key.startswith(RUNS_PREFIX):
            return LogEntry.for_run(key, sha256_hex(body), document)
        return LogEntry(
            "decision",
            key,
            sha256_hex(body),
            str(document["completed_at"]),
            decision_id=str(document["decision_id"]),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise PersistenceError(f"committed object {key} cannot be read: {exc}") from exc


@dataclass(frozen=True)
class SealReport:
    key: str
    root: str
    created: bool  # False: a retried Finalize found the run's object already written
    logged: int  # log lines appended now


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
    then list every committed object the log is missing."""
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
    logged = append_to_log(store, unlisted_entries(store))
    return SealReport(key=key, root=root, created=created, logged=logged)
