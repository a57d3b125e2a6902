"""Decisions in full, read from the audit bucket: the prompt, every raw reply and the whole
reasoning (a few objects per decision, the expensive part of a publication: read only for the
decisions whose pages are drawn)."""

from __future__ import annotations

from collections.abc import Sequence

from arena_core.dataset.details import UNAVAILABLE, DecisionDetails, ReplyView, reply_text
from arena_core.domain.decisions import DecisionRecord
from arena_core.errors import ArenaError
from arena_core.ports.blob_store import BlobStore
from arena_core.protocol.prompt import split_transcript


def _text(blobs: BlobStore | None, ref: str | None) -> str | None:
    if blobs is None or ref is None:
        return None
    try:
        return blobs.get(ref).decode("utf-8", "replace")
    except ArenaError:
        return None


def read_details(record: DecisionRecord, blobs: BlobStore | None) -> DecisionDetails:
    outcome = record.outcome
    audits = outcome.responses if outcome else ()
    prompt = _text(blobs, outcome.prompt_ref if outcome else None)
    system, user = split_transcript(prompt) if prompt is not None else (UNAVAILABLE, UNAVAILABLE)
    replies = []
    for audit in audits:
        body = _text(blobs, audit.response_ref)
        replies.append(
            ReplyView(audit, body or UNAVAILABLE, reply_text(body) if body else UNAVAILABLE)
        )
    reasoning = outcome.reasoning if outcome else ""
    if outcome is not None and outcome.reasoning_ref is not None:
        reasoning = _text(blobs, outcome.reasoning_ref) or reasoning
    return DecisionDetails(record, system, user, tuple(replies), reasoning)


def decisions_marker(records: Sequence[DecisionRecord]) -> bytes:
    """What a cohort's decision pages and prompt and reply tables depend on: each decision's
    id, status and last change. Equal markers: nothing to read or render again."""
    lines = sorted(f"{r.decision_id} {r.status.value} {r.updated_at.isoformat()}" for r in records)
    return ("\n".join(lines) + "\n").encode()
