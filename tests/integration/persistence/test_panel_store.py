"""The panel store on every backend: questions registered once, scored once, read back whole."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from arena_core.domain.coherence import DecisionCoherence, coherence_of
from arena_core.domain.panel import (
    PanelForecast,
    PanelMarket,
    PanelQuestion,
    QuestionStatus,
    ScoredBy,
)
from arena_core.ports.stores import Stores
from arena_core.scoring.panel import Entry, question_scores

RUN = datetime(2026, 3, 1, 0, 5, tzinfo=UTC)


def question(cohort: str, market: str, week: int = 1) -> PanelQuestion:
    return PanelQuestion(
        cohort_id=cohort,
        week=week,
        run_at=RUN,
        market=PanelMarket(
            market_id=market,
            question=f"{market}?",
            category="Politics",
            end_date=RUN + timedelta(days=9),
            p_yes=Decimal("0.35"),
        ),
        agent_ids=(f"{cohort}.a", f"{cohort}.b"),
    )


def test_questions_register_once_and_are_scored_once(stores: Stores) -> None:
    questions = [question("c1", "m2"), question("c1", "m1"), question("c2", "m1")]
    assert stores.panel.register_questions(questions) == 3
    assert stores.panel.register_questions([question("c1", "m1"), question("c1", "m3")]) == 1
    pending = stores.panel.pending_questions()
    assert [q.question_id for q in pending] == [
        "c1.w001.m1",
        "c1.w001.m2",
        "c1.w001.m3",
        "c2.w001.m1",
    ]
    target = pending[0]
    entries = [
        Entry(
            a,
            a.split(".")[1],
            ScoredBy.LLM,
            PanelForecast(market_id="m1", stated=Decimal(p), p_yes=Decimal(p)),
        )
        for a, p in zip(target.agent_ids, ("0.7", "0.2"), strict=True)
    ]
    scores = question_scores(target, 1, entries, RUN + timedelta(days=2))
    assert stores.panel.record_scores(target, scores, QuestionStatus.SCORED)
    assert not stores.panel.record_scores(target, scores, QuestionStatus.SCORED)
    assert not stores.panel.record_scores(target, (), QuestionStatus.VOID)
    assert stores.panel.record_scores(pending[1], (), QuestionStatus.VOID)
    assert stores.panel.scores("c1") == scores
    assert stores.panel.scores("c2") == []
    assert [q.question_id for q in stores.panel.pending_questions()] == [
        "c1.w001.m3",
        "c2.w001.m1",
    ]
    statuses = [(q.market.market_id, q.status) for q in stores.panel.questions("c1")]
    assert statuses == [
        ("m1", QuestionStatus.SCORED),
        ("m2", QuestionStatus.VOID),
        ("m3", QuestionStatus.PENDING),
    ]


def decision_coherence(cohort: str, family: str, week: int, coherent: bool) -> DecisionCoherence:
    agent = f"{cohort}.{family}"
    buy = coherence_of(
        "m1",
        "YES",
        yes_side=True,
        p_yes=Decimal("0.6") if coherent else Decimal("0.3"),
        yes_price=Decimal("0.4"),
        amount=Decimal("200"),
        cash=Decimal("10000"),
    )
    return DecisionCoherence(
        decision_id=f"{agent}.w{week:03d}",
        agent_id=agent,
        cohort_id=cohort,
        family_id=family,
        week=week,
        trades=(buy,),
    )


def test_coherence_is_stored_per_decision_and_read_per_family(stores: Stores) -> None:
    first = decision_coherence("c2", "a", 1, coherent=True)
    stores.panel.record_coherence(first)
    stores.panel.record_coherence(first)  # a retried decision stores the same once
    stores.panel.record_coherence(decision_coherence("c1", "a", 2, coherent=False))
    stores.panel.record_coherence(decision_coherence("c1", "b", 2, coherent=True))
    found = stores.panel.family_coherence("a")
    assert [c.decision_id for c in found] == ["c1.a.w002", "c2.a.w001"]
    assert [c.trades[0].coherent for c in found] == [False, True]
    assert found[1] == first
    assert stores.panel.family_coherence("nobody") == []
