"""The forecast panel on DynamoDB: one partition per cohort holding its questions (``Q#``),
scores (``S#``) and decisions' trade coherence (``C#``), each stored as JSON text; pending
questions sit in a sparse GSI1 partition that scoring leaves, and coherence items in a GSI2
partition per family. A question's scores and its closing are one transaction, conditional on
the question still pending: a retried resolve writes nothing twice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena_core.adapters.dynamodb import schema as k
from arena_core.adapters.dynamodb.codec import from_attributes, to_attributes
from arena_core.adapters.dynamodb.table import ConditionFailed, Expr, Table, TransactionCancelled
from arena_core.domain.coherence import DecisionCoherence
from arena_core.domain.panel import PanelQuestion, PanelScore, QuestionStatus
from arena_core.errors import PersistenceError
from arena_core.ports.panel_store import PanelStore

ABSENT = "attribute_not_exists(PK)"


def _question_key(question: PanelQuestion) -> dict[str, str]:
    return k.panel_question_key(question.cohort_id, question.week, question.market.market_id)


def _question_item(question: PanelQuestion) -> dict[str, object]:
    return {
        **_question_key(question),
        "entity": "panel_question",
        "question": question.model_dump_json(),
        k.GSI1PK: k.PANEL_PENDING,
        k.GSI1SK: question.question_id,
    }


def _score_item(score: PanelScore) -> dict[str, Any]:
    keys = k.panel_score_key(score.cohort_id, score.week, score.market_id, score.agent_id)
    return to_attributes({**keys, "entity": "panel_score", "score": score.model_dump_json()})


class DynamoPanelStore(PanelStore):
    def __init__(self, table: Table) -> None:
        self.table = table

    def register_questions(self, questions: Sequence[PanelQuestion]) -> int:
        new = 0
        for question in questions:
            try:
                self.table.put(to_attributes(_question_item(question)), condition=ABSENT)
            except ConditionFailed:  # registered by an earlier run of the week: kept as it was
                continue
            new += 1
        return new

    def pending_questions(self) -> list[PanelQuestion]:
        items = self.table.index_partition(k.GSI1, k.GSI1PK, k.PANEL_PENDING)
        found = [PanelQuestion.model_validate_json(from_attributes(i)["question"]) for i in items]
        return sorted(found, key=lambda q: q.question_id)

    def record_scores(
        self, question: PanelQuestion, scores: Sequence[PanelScore], status: QuestionStatus
    ) -> bool:
        expr = Expr()
        closed = question.model_copy(update={"status": status})
        update = (
            f"SET {expr.n('question')} = {expr.v(closed.model_dump_json())} "
            f"REMOVE {expr.n(k.GSI1PK)}, {expr.n(k.GSI1SK)}"
        )
        condition = f"attribute_exists({expr.n(k.GSI1PK)})"
        close = {
            "Update": {
                "Key": _question_key(question),
                "UpdateExpression": update,
                "ConditionExpression": condition,
                **expr.kwargs(),
            }
        }
        puts = [
            (
                f"score-{i}",
                {"Put": {"Item": _score_item(s), "ConditionExpression": ABSENT}},
            )
            for i, s in enumerate(scores)
        ]
        try:
            self.table.transact([("question", close), *puts])
        except TransactionCancelled as exc:
            if exc.failed("question"):
                return False
            raise PersistenceError(f"panel question {question.question_id}: {exc.reasons}") from exc
        return True

    def scores(self, cohort_id: str) -> list[PanelScore]:
        items = self.table.partition(k.panel_pk(cohort_id), k.PANEL_SCORE)
        return [PanelScore.model_validate_json(from_attributes(i)["score"]) for i in items]

    def questions(self, cohort_id: str) -> list[PanelQuestion]:
        items = self.table.partition(k.panel_pk(cohort_id), k.PANEL_QUESTION)
        return [PanelQuestion.model_validate_json(from_attributes(i)["question"]) for i in items]

    def record_coherence(self, coherence: DecisionCoherence) -> None:
        keys = k.panel_coherence_key(coherence.cohort_id, coherence.decision_id)
        item = {
            **keys,
            "entity": "panel_coherence",
            "coherence": coherence.model_dump_json(),
            k.GSI2PK: k.family_coherence_index(coherence.family_id),
            k.GSI2SK: coherence.decision_id,
        }
        self.table.put(to_attributes(item))  # the same rows on a retry: last write is the same

    def family_coherence(self, family_id: str) -> list[DecisionCoherence]:
        items = self.table.index_partition(k.GSI2, k.GSI2PK, k.family_coherence_index(family_id))
        found = [
            DecisionCoherence.model_validate_json(from_attributes(i)["coherence"]) for i in items
        ]
        return sorted(found, key=lambda c: c.decision_id)
