"""Decision claims: claim before call, owner tokens, leases, checkpoints, attempt limits.

Only the owner of a live claim may checkpoint, extend, complete or fail it; a succeeded
decision is final.
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
        """Close the owner's claim as succeeded, retryable failure (attempts + 1; the checkpoint
        is cleared so the next attempt asks again, unless ``keep_checkpoint``: trades of it may
        have been applied, so the next attempt must finish that answer) or failed."""

    @abstractmethod
    def get_decision(self, decision_id: str) -> DecisionRecord | None: ...

    @abstractmethod
    def decisions(self, agent_id: str) -> list[DecisionRecord]:
        """The agent's decisions, in week order."""
