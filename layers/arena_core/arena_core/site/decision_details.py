"""A decision in full, as its page and the dataset's prompts and replies tables show it: the
system and user prompt, every raw reply with who answered, its tokens, cost and latency, and
the whole reasoning, read from the audit bucket.

These reads are the expensive part of a publication (a few objects per decision), and a
decision's record never changes once it is final, so a cohort's details are read and rendered
only when its decisions changed since the last publication (``decisions_marker``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from arena_core.domain.decisions import DecisionOutcome, DecisionRecord, ResponseAudit
from arena_core.errors import ArenaError
from arena_core.ports.blob_store import BlobStore
from arena_core.protocol.prompt import split_transcript

UNAVAILABLE = "(unavailable)"


@dataclass(frozen=True)
class ReplyView:
    audit: ResponseAudit
    body: str  # the raw response body as stored (the whole completion JSON, for a model)
    text: str  # the assistant message in it


@dataclass(frozen=True)
class DecisionDetails:
    record: DecisionRecord
    system_prompt: str
    user_prompt: str
    replies: tuple[ReplyView, ...]
    reasoning: str

    @property
    def outcome(self) -> DecisionOutcome | None:
        return self.record.outcome

    @property
    def tokens_in(self) -> int:
        return sum(r.audit.prompt_tokens for r in self.replies)

    @property
    def tokens_out(self) -> int:
        return sum(r.audit.completion_tokens for r in self.replies)

    @property
    def cost(self) -> Decimal | None:
        costs = [r.audit.cost for r in self.replies if r.audit.cost is not None]
        return sum(costs, Decimal(0)) if costs else None

    @property
    def latency_ms(self) -> int:
        return sum(r.audit.latency_ms for r in self.replies)


def reply_text(body: str) -> str:
    """The assistant message of a stored completion body (its content, or its reasoning when
    the content is blank, as the decide path read it), or the body itself. Total: a body that
    is not a completion, nested beyond the decoder's depth included, is shown as it is, so one
    stored reply can never stop a publication."""
    try:
        parsed = json.loads(body)
        message = parsed["choices"][0]["message"]
        content, reasoning = message.get("content"), message.get("reasoning")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError):
        return body
    if isinstance(content, str) and content.strip():
        return content
    return reasoning if isinstance(reasoning, str) and reasoning else body


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
