"""Decision claims: claim before call, owner tokens, leases, checkpoints, attempt limits.

Only the owner of a live claim may checkpoint, extend, complete or fail it; a succeeded
decision is final, and so are an exhausted and a failed one.

A decision's row is bounded as a whole: its checkpoint and its outcome each within
``PAYLOAD_BYTES`` as JSON, its error within ``ERROR_BYTES`` (``within``; a ``StoreLimitError``
beyond), so every store keeps it in one item (DynamoDB's limit is 400 KB).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime, timedelta

from arena_core.domain.cohort import Agent
from arena_core.domain.decisions import (
    Consultation,
    DecisionOutcome,
    DecisionRecord,
    DecisionStatus,
)
from arena_core.errors import StoreLimitError

PAYLOAD_BYTES = 200_000  # the checkpoint's JSON, and the outcome's, each at most
ERROR_BYTES = 4_000  # the error's text (500 characters, up to four bytes each)
# Every failure status counts an attempt: a retryable one, the last one (exhausted), and one
# that retrying cannot help (failed: a decision that cannot be stored or decoded).
FAILURES = frozenset(
    {DecisionStatus.RETRYABLE_FAILURE, DecisionStatus.EXHAUSTED, DecisionStatus.FAILED}
)


def within(text: str, limit: int, what: str) -> str:
    """``text`` if its UTF-8 bytes fit in ``limit``; a ``StoreLimitError`` otherwise."""
    size = len(text.encode("utf-8"))
    if size > limit:
        raise StoreLimitError(f"{what}: {size} bytes (at most {limit} in a decision item)")
    return text


class DecisionStore(ABC):
    @abstractmethod
    def claim_decision(
        self,
        agent: Agent,
        week: int,
        *,
        owner: str,
        now: datetime,
        lease: timedelta,
        max_attempts: int,
        run: str | None = None,
    ) -> DecisionRecord:
        """Claim the agent-week for ``owner`` (one invocation) of ``run`` (default: the owner):
        succeeds when no row exists, the row is a retryable failure under the attempt limit,
        its lease has expired, or an invocation of the same run holds it (a takeover: the
        previous owner's writes are refused from then on). Raises a ``ClaimConflictError``."""

    @abstractmethod
    def extend_claim(self, decision_id: str, *, owner: str, lease_until: datetime) -> None: ...

    @abstractmethod
    def save_checkpoint(
        self, decision_id: str, *, owner: str, checkpoint: Consultation, now: datetime
    ) -> None: ...

    @abstractmethod
    def finish_decision(
        self,
        decision_id: str,
        *,
        owner: str,
        status: DecisionStatus,
        now: datetime,
        outcome: DecisionOutcome | None = None,
        error: str | None = None,
        keep_checkpoint: bool = False,
    ) -> DecisionRecord:
        """Close the owner's claim as succeeded, or as a failure (attempts + 1): retryable (the
        checkpoint is cleared so the next attempt asks again, unless ``keep_checkpoint``:
        trades of it may have been applied, so the next attempt must finish that answer),
        exhausted (the last attempt) or failed (retrying cannot help); both final."""

    @abstractmethod
    def get_decision(self, decision_id: str) -> DecisionRecord | None: ...

    @abstractmethod
    def decisions(self, agent_id: str) -> list[DecisionRecord]:
        """The agent's decisions, in week order."""
