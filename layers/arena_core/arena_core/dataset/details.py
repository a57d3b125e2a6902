"""A decision in full, as its page and the dataset's prompts and replies tables show it: the
system and user prompt, every raw reply with who answered, its tokens, cost and latency, and
the whole reasoning (read from the audit bucket by ``publication.details``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal

from arena_core.domain.decisions import DecisionOutcome, DecisionRecord, ResponseAudit

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
