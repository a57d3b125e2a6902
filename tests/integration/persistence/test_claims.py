"""Claim before call: one winner, owner-only writes, leases, attempt limits, final successes."""

import threading
from datetime import timedelta

import pytest

from arena_core.errors import (
    AttemptsExhaustedError,
    ClaimHeldError,
    ClaimLostError,
    DecisionAlreadySucceededError,
)
from arena_core.ports.repository import DecisionStatus, Repository
from tests.support.builders import RUN_AT, open_cohort

LEASE = timedelta(minutes=15)


def claim(repo: Repository, owner: str, *, at=RUN_AT, max_attempts: int = 3):  # type: ignore[no-untyped-def]
    _, agents = open_cohort(repo)
    return repo.claim_decision(
        agents[0], 1, owner=owner, now=at, lease=LEASE, max_attempts=max_attempts
    )


def test_first_claim_creates_the_row(repo: Repository) -> None:
    record = claim(repo, "run-a")
    assert record.status is DecisionStatus.CLAIMED
    assert record.owner == "run-a"
    assert record.lease_until == RUN_AT + LEASE
    assert record.claims == 1
    assert record.attempts == 0
    assert repo.get_decision(record.decision_id) == record


def test_a_live_claim_is_held(repo: Repository) -> None:
    claim(repo, "run-a")
    with pytest.raises(ClaimHeldError):
        claim(repo, "run-b", at=RUN_AT + timedelta(minutes=1))


def test_an_expired_lease_is_taken_over_and_the_old_owner_is_locked_out(repo: Repository) -> None:
    first = claim(repo, "run-a")
    taken = claim(repo, "run-b", at=RUN_AT + LEASE + timedelta(seconds=1))
    assert taken.owner == "run-b"
    assert taken.claims == 2
    with pytest.raises(ClaimLostError):
        repo.save_checkpoint(first.decision_id, owner="run-a", checkpoint={"x": 1}, now=RUN_AT)
    with pytest.raises(ClaimLostError):
        repo.finish_decision(
            first.decision_id, owner="run-a", status=DecisionStatus.SUCCEEDED, now=RUN_AT
        )
    done = repo.finish_decision(
        first.decision_id,
        owner="run-b",
        status=DecisionStatus.SUCCEEDED,
        now=RUN_AT,
        outcome={"action": "HOLD"},
    )
    assert done.status is DecisionStatus.SUCCEEDED
    assert done.outcome == {"action": "HOLD"}


def test_a_succeeded_decision_is_final(repo: Repository) -> None:
    record = claim(repo, "run-a")
    repo.finish_decision(
        record.decision_id, owner="run-a", status=DecisionStatus.SUCCEEDED, now=RUN_AT
    )
    with pytest.raises(DecisionAlreadySucceededError):
        claim(repo, "run-b", at=RUN_AT + timedelta(days=1))


def test_retryable_failures_reclaim_until_the_attempt_limit(repo: Repository) -> None:
    _, agents = open_cohort(repo)
    agent = agents[0]
    for attempt in range(1, 3):
        record = repo.claim_decision(
            agent, 1, owner=f"run-{attempt}", now=RUN_AT, lease=LEASE, max_attempts=2
        )
        failed = repo.finish_decision(
            record.decision_id,
            owner=f"run-{attempt}",
            status=DecisionStatus.RETRYABLE_FAILURE,
            now=RUN_AT,
            error="zero trades",
        )
        assert failed.attempts == attempt
        assert failed.error == "zero trades"
    with pytest.raises(AttemptsExhaustedError):
        repo.claim_decision(agent, 1, owner="run-3", now=RUN_AT, lease=LEASE, max_attempts=2)


def test_a_failed_decision_cannot_be_claimed(repo: Repository) -> None:
    record = claim(repo, "run-a")
    repo.finish_decision(
        record.decision_id, owner="run-a", status=DecisionStatus.FAILED, now=RUN_AT, error="401"
    )
    with pytest.raises(AttemptsExhaustedError):
        claim(repo, "run-b", at=RUN_AT + timedelta(days=1))


def test_checkpoint_and_extension_by_the_owner(repo: Repository) -> None:
    record = claim(repo, "run-a")
    repo.save_checkpoint(
        record.decision_id, owner="run-a", checkpoint={"decision": {"action": "BET"}}, now=RUN_AT
    )
    repo.extend_claim(record.decision_id, owner="run-a", lease_until=RUN_AT + timedelta(hours=1))
    stored = repo.get_decision(record.decision_id)
    assert stored is not None
    assert stored.checkpoint == {"decision": {"action": "BET"}}
    assert stored.lease_until == RUN_AT + timedelta(hours=1)
    with pytest.raises(ClaimLostError):
        repo.extend_claim(record.decision_id, owner="intruder", lease_until=RUN_AT)


def test_ten_concurrent_claimers_one_winner(repo: Repository) -> None:
    _, agents = open_cohort(repo)
    winners: list[str] = []
    losers: list[Exception] = []
    lock = threading.Lock()
    barrier = threading.Barrier(10)

    def claimer(n: int) -> None:
        barrier.wait()
        try:
            repo.claim_decision(
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
    record = repo.get_decision(repo.decisions(agents[0].agent_id)[0].decision_id)
    assert record is not None
    assert record.owner == winners[0]
    assert record.claims == 1


def test_two_owners_racing_to_complete_only_the_owner_lands(repo: Repository) -> None:
    old = claim(repo, "run-old")
    repo.claim_decision(
        repo.get_agent(old.agent_id),
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
            repo.finish_decision(
                old.decision_id,
                owner=owner,
                status=DecisionStatus.SUCCEEDED,
                now=RUN_AT,
                outcome={"by": owner},
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
    final = repo.get_decision(old.decision_id)
    assert final is not None
    assert final.outcome == {"by": "run-new"}
