"""The forecast panel's questions and scores in memory."""

from __future__ import annotations

from collections.abc import Sequence

from arena_core.domain.coherence import DecisionCoherence
from arena_core.domain.panel import PanelQuestion, PanelScore, QuestionStatus
from arena_core.ports.panel_store import PanelStore
from arena_local.memory.state import MemoryState


def _order(score: PanelScore) -> tuple[int, str, str]:
    return score.week, score.market_id, score.agent_id


class MemoryPanelStore(PanelStore):
    def __init__(self, state: MemoryState) -> None:
        self._s = state

    def register_questions(self, questions: Sequence[PanelQuestion]) -> int:
        with self._s.lock:
            new = [q for q in questions if q.question_id not in self._s.panel_questions]
            for question in new:
                self._s.panel_questions[question.question_id] = question
            return len(new)

    def pending_questions(self) -> list[PanelQuestion]:
        with self._s.lock:
            found = self._s.panel_questions.values()
            pending = [q for q in found if q.status is QuestionStatus.PENDING]
            return sorted(pending, key=lambda q: q.question_id)

    def record_scores(
        self, question: PanelQuestion, scores: Sequence[PanelScore], status: QuestionStatus
    ) -> bool:
        with self._s.lock:
            stored = self._s.panel_questions.get(question.question_id)
            if stored is None or stored.status is not QuestionStatus.PENDING:
                return False
            self._s.panel_questions[question.question_id] = stored.model_copy(
                update={"status": status}
            )
            self._s.panel_scores[question.question_id] = list(scores)
            return True

    def scores(self, cohort_id: str) -> list[PanelScore]:
        with self._s.lock:
            found = [
                s
                for question_id, scores in self._s.panel_scores.items()
                if self._s.panel_questions[question_id].cohort_id == cohort_id
                for s in scores
            ]
        return sorted(found, key=_order)

    def questions(self, cohort_id: str) -> list[PanelQuestion]:
        with self._s.lock:
            found = [q for q in self._s.panel_questions.values() if q.cohort_id == cohort_id]
        return sorted(found, key=lambda q: (q.week, q.market.market_id))

    def record_coherence(self, coherence: DecisionCoherence) -> None:
        with self._s.lock:
            self._s.panel_coherence[coherence.decision_id] = coherence

    def family_coherence(self, family_id: str) -> list[DecisionCoherence]:
        with self._s.lock:
            found = [c for c in self._s.panel_coherence.values() if c.family_id == family_id]
        return sorted(found, key=lambda c: c.decision_id)
