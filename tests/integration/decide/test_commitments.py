"""Commitments on the decide path and at the run's end, with the in-memory commitment store,
on the fake store and on DynamoDB (moto): what is committed, when, and that nothing committed
is ever replaced."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from typing import Any

import pytest

from arena_core.domain.commitment_log import LOG_KEY, LogEntry, decision_key, merkle_root
from arena_core.domain.decisions import DecisionStatus
from arena_core.errors import ConflictError
from arena_core.services.commitments import append_to_log, seal_run, unlisted_entries
from arena_core.services.decide import DecideService, DecideSettings
from arena_local.memory import InMemoryBlobStore, InMemoryCommitmentStore
from tests.integration.decide.conftest import World
from tests.support.agents import ScriptedAgent
from tests.support.builders import RUN_AT
from tests.support.crash import SimulatedCrash, crashing

BET = json.dumps(
    {
        "action": "BET",
        "bets": [
            {"market_id": "m1", "side": "YES", "amount": 1000},
            {"market_id": "nope", "side": "YES", "amount": 100},
        ],
        "reasoning": "m1 is underpriced",
    }
)
ZERO_TRADES = '{"action": "BET", "bets": [{"market_id": "nope", "side": "YES", "amount": 100}]}'


def sha(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def service(world: World, store: InMemoryCommitmentStore, stores: Any = None) -> DecideService:
    return DecideService(
        stores or world.stores, world.blobs, world.clock, DecideSettings(), commitments=store
    )


def log(store: InMemoryCommitmentStore) -> list[LogEntry]:
    stored = store.read(LOG_KEY)
    return [LogEntry.parse(x) for x in stored.body.decode().splitlines()] if stored else []


def test_a_succeeded_decision_publishes_its_record_under_its_hash_at_once(world: World) -> None:
    # Given a model that bets (one instruction executes, one is rejected)
    store = InMemoryCommitmentStore()
    world.clock.set(RUN_AT + timedelta(seconds=42, microseconds=7))
    # When the decision runs
    result = service(world, store).decide(world.request(), ScriptedAgent(BET))
    # Then its canonical record is published under its own SHA-256, which the decision keeps
    assert result.status is DecisionStatus.SUCCEEDED
    (record,) = world.stores.decisions.decisions(world.agents[0].agent_id)
    assert record.outcome is not None and record.outcome.commitment is not None
    key = decision_key(record.decision_id, record.outcome.commitment)
    stored = store.read(key)
    assert stored is not None and sha(stored.body) == record.outcome.commitment
    document = json.loads(stored.body)
    # at the decision's own completion time, covering the prompt and the reply as stored
    assert document["completed_at"] == "2026-03-01T00:05:42.000007Z"
    assert record.updated_at == world.clock.now()
    outcome = record.outcome
    assert document["prompt_sha256"] == sha(world.blobs.get(outcome.prompt_ref))
    assert document["reply_sha256"] == [sha(world.blobs.get(outcome.responses[0].response_ref))]
    assert [t["amount"] for t in document["trades"]] == ["1000"]
    assert [i["market_id"] for i in document["instructions"]] == ["m1", "nope"]
    # and only the object: the log is Finalize's to write (its role alone may), which lists it
    assert log(store) == []
    assert [(e.kind, e.key, e.sha256) for e in unlisted_entries(store).entries] == [
        ("decision", key, stored.tag)
    ]


def test_a_fallback_hold_is_committed_with_every_reply(world: World) -> None:
    store = InMemoryCommitmentStore()
    service(world, store).decide(world.request(), ScriptedAgent("not json"))
    (record,) = world.stores.decisions.decisions(world.agents[0].agent_id)
    assert record.outcome is not None and record.outcome.commitment is not None
    stored = store.read(decision_key(record.decision_id, record.outcome.commitment))
    assert stored is not None
    document = json.loads(stored.body)
    assert (document["action"], document["fallback"]) == ("HOLD", True)
    assert len(document["reply_sha256"]) == 3  # the first reply and two format retries


def test_a_decision_that_did_not_succeed_commits_nothing(world: World) -> None:
    store = InMemoryCommitmentStore()
    result = service(world, store).decide(world.request(), ScriptedAgent(ZERO_TRADES))
    assert result.status is DecisionStatus.RETRYABLE_FAILURE
    (record,) = world.stores.decisions.decisions(world.agents[0].agent_id)
    assert record.outcome is not None and record.outcome.commitment is None
    assert store.keys("commitments/") == []


def test_a_crash_before_the_decision_is_closed_leaves_its_commitment_and_a_new_one_closes_it(
    world: World,
) -> None:
    # Given a completion that published its commitment, then died before closing the decision
    store = InMemoryCommitmentStore()
    with pytest.raises(SimulatedCrash):
        service(world, store, crashing(world.stores, "finish_decision", 0)).decide(
            world.request(), ScriptedAgent(BET)
        )
    (first,) = store.keys("commitments/decisions/")
    # When the retry completes it later (the crashed run's lease expired)
    world.clock.set(world.clock.now() + timedelta(minutes=16))
    service(world, store).decide(world.request(owner="run-2"), ScriptedAgent(BET))
    # Then the first object stays as it was, and the decision's commitment is the new one
    (record,) = world.stores.decisions.decisions(world.agents[0].agent_id)
    assert record.outcome is not None and record.outcome.commitment is not None
    second = decision_key(record.decision_id, record.outcome.commitment)
    assert sorted(store.keys("commitments/decisions/")) == sorted([first, second])
    assert first != second
    # Both objects wait for the run's seal, which lists every committed object the log is
    # missing (Finalize alone writes the log)
    assert log(store) == []
    assert sorted(e.key for e in unlisted_entries(store).entries) == sorted([first, second])


def test_a_takeover_after_the_checkpoint_commits_the_hashes_taken_when_it_was_asked(
    world: World,
) -> None:
    # Given a decision that crashed between its trades, after its checkpoint
    store = InMemoryCommitmentStore()
    with pytest.raises(SimulatedCrash):
        service(world, store, crashing(world.stores, "apply_trade", 0)).decide(
            world.request(), ScriptedAgent(BET)
        )
    asked = world.stores.decisions.decisions(world.agents[0].agent_id)[0].checkpoint
    assert asked is not None and asked.prompt_sha256 is not None
    # When another invocation finishes it, with blobs it could not read
    world.clock.set(world.clock.now() + timedelta(minutes=16))
    unreadable = InMemoryBlobStore()
    unreadable.put(world.universe_ref, world.blobs.get(world.universe_ref))
    takeover = DecideService(
        world.stores, unreadable, world.clock, DecideSettings(), commitments=store
    )
    takeover.decide(world.request(owner="run-2"), ScriptedAgent(SimulatedCrash("never asked")))
    # Then the record commits to the checkpoint's hashes (no blob was read again)
    (record,) = world.stores.decisions.decisions(world.agents[0].agent_id)
    assert record.outcome is not None and record.outcome.commitment is not None
    stored = store.read(decision_key(record.decision_id, record.outcome.commitment))
    assert stored is not None
    assert json.loads(stored.body)["prompt_sha256"] == asked.prompt_sha256


def test_a_checkpoint_saved_without_hashes_reads_its_blobs_once(world: World) -> None:
    store = InMemoryCommitmentStore()
    with pytest.raises(SimulatedCrash):
        service(world, store, crashing(world.stores, "apply_trade", 0)).decide(
            world.request(), ScriptedAgent(BET)
        )
    # As a checkpoint written before hashes were kept
    checkpoint = world.stores.decisions.decisions(world.agents[0].agent_id)[0].checkpoint
    assert checkpoint is not None
    old = checkpoint.model_copy(
        update={
            "prompt_sha256": None,
            "responses": tuple(
                r.model_copy(update={"body_sha256": None}) for r in checkpoint.responses
            ),
        }
    )
    record = world.stores.decisions.decisions(world.agents[0].agent_id)[0]
    world.stores.decisions.save_checkpoint(
        record.decision_id, owner=str(record.owner), checkpoint=old, now=world.clock.now()
    )
    world.clock.set(world.clock.now() + timedelta(minutes=16))
    service(world, store).decide(world.request(owner="run-2"), ScriptedAgent(BET))
    (done,) = world.stores.decisions.decisions(world.agents[0].agent_id)
    assert done.outcome is not None and done.outcome.commitment is not None
    stored = store.read(decision_key(done.decision_id, done.outcome.commitment))
    assert stored is not None
    assert json.loads(stored.body)["prompt_sha256"] == sha(world.blobs.get(old.prompt_ref))


def test_a_run_is_sealed_once_with_the_root_of_its_succeeded_decisions(world: World) -> None:
    # Given three agents: two succeed, one fails (zero trades)
    store = InMemoryCommitmentStore()
    replies = [BET, '{"action": "HOLD", "reasoning": "wait"}', ZERO_TRADES]
    ids = []
    for index, reply in enumerate(replies):
        ids.append(service(world, store).decide(world.request(index), ScriptedAgent(reply)))
    decided = [r.decision_id for r in ids]
    # When the run is sealed
    report = seal_run(
        world.stores.decisions,
        store,
        run_id="run-1",
        run_at=RUN_AT,
        decision_ids=decided,
        now=world.clock.now(),
    )
    # Then its object holds the succeeded decisions, in decision-id order, and their root
    assert report is not None and report.created
    stored = store.read(report.key)
    assert stored is not None
    document = json.loads(stored.body)
    records = {
        r.decision_id: r
        for i in range(3)
        for r in world.stores.decisions.decisions(world.agents[i].agent_id)
    }
    expected = sorted(
        (d, r.outcome.commitment)
        for d, r in records.items()
        if r.status is DecisionStatus.SUCCEEDED and r.outcome and r.outcome.commitment
    )
    assert len(expected) == 2
    assert [(x["decision_id"], x["commitment"]) for x in document["leaves"]] == expected
    assert report.root == document["root"] == merkle_root([c for _, c in expected])
    sealed = LogEntry(
        "run", report.key, stored.tag, document["sealed_at"], run_id="run-1", root=report.root
    )
    assert log(store)[-1] == sealed
    # And sealing it again (a retried Finalize) writes nothing and keeps the first root
    world.clock.set(world.clock.now() + timedelta(minutes=3))
    again = seal_run(
        world.stores.decisions,
        store,
        run_id="run-1",
        run_at=RUN_AT,
        decision_ids=decided,
        now=world.clock.now(),
    )
    assert again is not None and not again.created and again.root == report.root
    assert store.read(report.key) == stored
    assert len(log(store)) == 3


def test_a_run_without_a_succeeded_decision_is_not_sealed(world: World) -> None:
    store = InMemoryCommitmentStore()
    result = service(world, store).decide(world.request(), ScriptedAgent(ZERO_TRADES))
    report = seal_run(
        world.stores.decisions,
        store,
        run_id="run-1",
        run_at=RUN_AT,
        decision_ids=[result.decision_id],
        now=world.clock.now(),
    )
    assert report is None and store.keys("commitments/") == []


class RacingStore(InMemoryCommitmentStore):
    """Another writer appends a line between this writer's read and its replace, ``races``
    times."""

    def __init__(self, races: int) -> None:
        super().__init__()
        self.races = races

    def replace(self, key: str, body: bytes, *, expected: str | None) -> None:
        if self.races:
            self.races -= 1
            other = LogEntry(
                "decision", f"commitments/decisions/z/{self.races}.json", "0" * 64, "2026-03-01Z"
            )
            current = self.read(key)
            body = (current.body if current else b"") + other.line()
            super().replace(key, body, expected=current.tag if current else None)
        super().replace(key, body, expected=expected)


def test_appending_retries_when_another_writer_got_there_first_and_loses_no_line() -> None:
    mine = LogEntry("decision", "commitments/decisions/a/1.json", "1" * 64, "2026-03-01T00:05:00Z")
    store = RacingStore(races=2)
    assert append_to_log(store, [mine]) == 1
    assert len(log(store)) == 3  # the other writer's two lines and mine
    hopeless = RacingStore(races=99)
    with pytest.raises(ConflictError):
        append_to_log(hopeless, [mine])
