"""The forecast panel's questions and scores (methodology ``v1+panel``)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from arena_core.domain.coherence import DecisionCoherence
from arena_core.domain.panel import PanelQuestion, PanelScore, QuestionStatus


class PanelStore(ABC):
    @abstractmethod
    def register_questions(self, questions: Sequence[PanelQuestion]) -> int:
        """Store questions not stored yet (a rerun's are kept as first registered); how many
        were new."""

    @abstractmethod
    def pending_questions(self) -> list[PanelQuestion]:
        """Questions waiting to be scored, in question-id order."""

    @abstractmethod
    def record_scores(
        self, question: PanelQuestion, scores: Sequence[PanelScore], status: QuestionStatus
    ) -> bool:
        """Write the question's scores and close it (``scored`` or ``void``), all or nothing,
        once: False when it was closed already (a retried resolve scores nothing twice)."""

    @abstractmethod
    def scores(self, cohort_id: str) -> list[PanelScore]:
        """Every panel score of a cohort, in (week, market, agent) order."""

    @abstractmethod
    def questions(self, cohort_id: str) -> list[PanelQuestion]:
        """Every question of a cohort, whatever its status, in (week, market) order."""

    @abstractmethod
    def record_coherence(self, coherence: DecisionCoherence) -> None:
        """Store a decision's trade coherence (idempotent per decision: a retry stores the same
        rows again)."""

    @abstractmethod
    def family_coherence(self, family_id: str) -> list[DecisionCoherence]:
        """Every decision coherence of a family, across cohorts, in decision-id order."""
