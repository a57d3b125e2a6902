"""Claim before call: one winner, owner-only writes, leases, attempt limits, final successes."""

import threading
from datetime import timedelta

import pytest

from arena_core.domain.answer import Action
from arena_core.domain.decisions import DecisionStatus
from arena_core.errors import (
    AttemptsExhaustedError,
    ClaimHeldError,
    ClaimLostError,
    DecisionAlreadySucceededError,
)
from arena_core.ports.stores import Stores
from tests.support.builders import RUN_AT, consultation, hold_outcome, open_cohort

LEASE = timedelta(minutes=15)


def claim(stores: Stores, owner: str, *, at=RUN_AT, max_attempts: int = 3):  # type: ignore[no-untyped-def]
    _, agents = open_cohort(stores)
    return stores.decisions.claim_decision(
        agents[0], 1, owner=owner, now=at, lease=LEASE, max_attempts=max_attempts
    )


def test_first_claim_creates_the_row(stores: Stores) -> None:
    record = claim(stores, "run-a")
    assert record.status is DecisionStatus.CLAIMED
    assert record.owner == "run-a"
    assert record.lease_until == RUN_AT + LEASE
    assert record.claims == 1
    assert record.attempts == 0
    assert stores.decisions.get_decision(record.decision_id) == record


def test_a_live_claim_is_held(stores: Stores) -> None:
    claim(stores, "run-a")
    with pytest.raises(ClaimHeldError):
        claim(stores, "run-b", at=RUN_AT + timedelta(minutes=1))


def test_an_expired_lease_is_taken_over_and_the_old_owner_is_locked_out(stores: Stores) -> None:
    first = claim(stores, "run-a")
    taken = claim(stores, "run-b", at=RUN_AT + LEASE + timedelta(seconds=1))
    assert taken.owner == "run-b"
    assert taken.claims == 2
    with pytest.raises(ClaimLostError):
        stores.decisions.save_checkpoint(
            first.decision_id, owner="run-a", checkpoint=consultation(), now=RUN_AT
        )
    with pytest.raises(ClaimLostError):
        stores.decisions.finish_decision(
            first.decision_id, owner="run-a", status=DecisionStatus.SUCCEEDED, now=RUN_AT
        )
    done = stores.decisions.finish_decision(
        first.decision_id,
        owner="run-b",
        status=DecisionStatus.SUCCEEDED,
        now=RUN_AT,
        outcome=hold_outcome(),
    )
    assert done.status is DecisionStatus.SUCCEEDED
    assert done.outcome == hold_outcome()


def test_a_succeeded_decision_is_final(stores: Stores) -> None:
    record = claim(stores, "run-a")
    stores.decisions.finish_decision(
        record.decision_id, owner="run-a", status=DecisionStatus.SUCCEEDED, now=RUN_AT
    )
    with pytest.raises(DecisionAlreadySucceededError):
        claim(stores, "run-b", at=RUN_AT + timedelta(days=1))


def test_retryable_failures_reclaim_until_the_attempt_limit(stores: Stores) -> None:
    _, agents = open_cohort(stores)
    agent = agents[0]
    for attempt in range(1, 3):
        record = stores.decisions.claim_decision(
            agent, 1, owner=f"run-{attempt}", now=RUN_AT, lease=LEASE, max_attempts=2
        )
        failed = stores.decisions.finish_decision(
            record.decision_id,
            owner=f"run-{attempt}",
            status=DecisionStatus.RETRYABLE_FAILURE,
            now=RUN_AT,
            error="zero trades",
        )
        assert failed.attempts == attempt
        assert failed.error == "zero trades"
    with pytest.raises(AttemptsExhaustedError):
        stores.decisions.claim_decision(
            agent, 1, owner="run-3", now=RUN_AT, lease=LEASE, max_attempts=2
        )


def test_a_failed_decision_cannot_be_claimed(stores: Stores) -> None:
    record = claim(stores, "run-a")
    stores.decisions.finish_decision(
        record.decision_id, owner="run-a", status=DecisionStatus.FAILED, now=RUN_AT, error="401"
    )
    with pytest.raises(AttemptsExhaustedError):
        claim(stores, "run-b", at=RUN_AT + timedelta(days=1))


def test_checkpoint_and_extension_by_the_owner(stores: Stores) -> None:
    record = claim(stores, "run-a")
    stores.decisions.save_checkpoint(
        record.decision_id, owner="run-a", checkpoint=consultation(Action.BET), now=RUN_AT
    )
    stores.decisions.extend_claim(
        record.decision_id, owner="run-a", lease_until=RUN_AT + timedelta(hours=1)
    )
    stored = stores.decisions.get_decision(record.decision_id)
    assert stored is not None
    assert stored.checkpoint == consultation(Action.BET)
    assert stored.lease_until == RUN_AT + timedelta(hours=1)
    with pytest.raises(ClaimLostError):
        stores.decisions.extend_claim(record.decision_id, owner="intruder", lease_until=RUN_AT)


def test_ten_concurrent_claimers_one_winner(stores: Stores) -> None:
    _, agents = open_cohort(stores)
    winners: list[str] = []
    losers: list[Exception] = []
    lock = threading.Lock()
    barrier = threading.Barrier(10)

    def claimer(n: int) -> None:
        barrier.wait()
        try:
            stores.decisions.claim_decision(
                agents[0], 1, owner=f"run-{n}", now=RUN_AT, lease=LEASE, max_attempts=3
            )
        except ClaimHeldError as exc:
            with lock:
                losers.append(exc)
        else:
            with lock:
                winners.append(f"run-{n}")

    threads = [threading.Thread(target=claimer, args=(n,)) for n in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(winners) == 1
    assert len(losers) == 9
    record = stores.decisions.get_decision(
        stores.decisions.decisions(agents[0].agent_id)[0].decision_id
    )
    assert record is not None
    assert record.owner == winners[0]
    assert record.claims == 1


def test_two_owners_racing_to_complete_only_the_owner_lands(stores: Stores) -> None:
    old = claim(stores, "run-old")
    stores.decisions.claim_decision(
        stores.ledger.get_agent(old.agent_id),
        1,
        owner="run-new",
        now=RUN_AT + LEASE * 2,
        lease=LEASE,
        max_attempts=3,
    )
    results: dict[str, str] = {}
    barrier = threading.Barrier(2)

    def complete(owner: str) -> None:
        barrier.wait()
        try:
            stores.decisions.finish_decision(
                old.decision_id,
                owner=owner,
                status=DecisionStatus.SUCCEEDED,
                now=RUN_AT,
                outcome=hold_outcome(reasoning=owner),
            )
            results[owner] = "landed"
        except ClaimLostError:
            results[owner] = "refused"

    threads = [threading.Thread(target=complete, args=(o,)) for o in ("run-old", "run-new")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {"run-old": "refused", "run-new": "landed"}
    final = stores.decisions.get_decision(old.decision_id)
    assert final is not None
    assert final.outcome == hold_outcome(reasoning="run-new")
