"""The synthesized state machine definition, executed by moto's Step Functions interpreter, with
the real handlers routed in-process and the real DynamoDB adapter underneath."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from arena_core import bootstrap, entrypoints
from arena_core.adapters.s3_blobs import S3BlobStore
from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.commitment_log import merkle_root
from arena_core.domain.lineup import default_lineup
from arena_core.errors import RetryableUpstreamError
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.clock import FixedClock
from arena_core.ports.llm import ChatMessage, LLMResponse
from arena_core.settings import ArenaSettings
from arena_local.memory import InMemoryCommitmentStore
from arena_local.workflow import (
    HANDLERS,
    MOTO_CONFIG,
    AccountConcurrency,
    LocalWorkflow,
    routed_handlers,
)
from tests.support.alerts import RecordingAlerts
from tests.support.aws import FAKE_ENV, TABLE, create_stores
from tests.support.builders import binary
from tests.support.markets import StaticMarketSource

WEEK = datetime(2026, 3, 1, tzinfo=UTC)


class TimedAgent(ForecastAgent):
    """Bets on m1 after an optional delay; records when each call ran (sequential checks)."""

    def __init__(
        self,
        log: list[tuple[float, float]],
        lock: threading.Lock,
        fail: bool = False,
        delay: float = 0.0,
    ) -> None:
        self._log, self._lock, self._fail, self._delay = log, lock, fail, delay

    def respond(self, messages: list[ChatMessage], context: AgentContext) -> LLMResponse:  # type: ignore[override]
        start = time.monotonic()
        if self._fail:
            raise RetryableUpstreamError("the model keeps timing out")
        time.sleep(self._delay)
        with self._lock:
            self._log.append((start, time.monotonic()))
        text = json.dumps(
            {
                "action": "BET",
                "bets": [{"market_id": "m1", "side": "YES", "amount": 100}],
                "reasoning": "r",
            }
        )
        return LLMResponse(content=text, model="test/model", provider="Test", raw_body=text)


@dataclass
class Harness:
    workflow: LocalWorkflow
    stores: Any
    calls: list[tuple[float, float]]
    failing: set[str]
    cohort: Cohort
    commitments: InMemoryCommitmentStore
    alerts: RecordingAlerts
    delay: list[float]  # seconds each agent takes to answer (one value, set by a test)

    def run(self, payload: dict[str, Any], name: str) -> dict[str, Any]:
        return self.workflow.run(payload, name, timeout=120)


@pytest.fixture
def harness(
    raw: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[Harness]:
    for key, value in {
        **FAKE_ENV,
        "POWERTOOLS_TRACE_DISABLED": "true",
    }.items():
        monkeypatch.setenv(key, value)
    with mock_aws(config=MOTO_CONFIG), routed_handlers():  # type: ignore[call-overload]
        stores = create_stores()
        s3 = boto3.client("s3")
        s3.create_bucket(Bucket="audit")
        calls: list[tuple[float, float]] = []
        lock = threading.Lock()
        failing: set[str] = set()
        delay = [0.0]

        def agent_for(agent: Agent) -> ForecastAgent:
            return TimedAgent(calls, lock, fail=agent.family_id in failing, delay=delay[0])

        commitments = InMemoryCommitmentStore()
        alerts = RecordingAlerts()
        clock = FixedClock(WEEK)
        cohort = Cohort.open(WEEK, default_lineup(include_baselines=False))
        stores.cohorts.create_cohort(cohort, cohort.agents())
        clock.set(WEEK.replace(minute=5))
        container = bootstrap.Container(
            ArenaSettings(table_name=TABLE, audit_bucket="audit", max_attempts=3),
            clock=clock,
            injected=bootstrap.Injected(
                stores=stores,
                blobs=S3BlobStore(s3, "audit"),
                market_source=StaticMarketSource([binary("m1", "0.40"), binary("m2", "0.60")]),
                publisher=LocalFolderPublisher(tmp_path / "site"),
                commitments=commitments,
                agent_for=agent_for,
                alerts=alerts,
            ),
        )
        bootstrap.reset(container)
        yield Harness(
            LocalWorkflow(raw), stores, calls, failing, cohort, commitments, alerts, delay
        )
        bootstrap.reset()


def results(described: dict[str, Any]) -> dict[str, Any]:
    output: dict[str, Any] = json.loads(described["output"])
    return output


def test_a_full_decision_run_for_seven_agents(harness: Harness) -> None:
    described = harness.run({}, "run-1")
    assert described["status"] == "SUCCEEDED", described.get("error")
    output = results(described)
    assert output["decisions"] == {"succeeded": 7}
    assert output["undecided"] == [] and harness.alerts.sent == []  # no alert when all decided
    agents = harness.stores.cohorts.agents(harness.cohort.cohort_id)
    assert all(len(harness.stores.ledger.trades(a.agent_id)) == 1 for a in agents)
    assert output["snapshot"]["agents"] == 7
    # Finalize got the run's time and execution from the state machine, and sealed the run:
    # the root of the seven decisions' commitments, in decision-id order
    records = sorted(
        (d for a in agents for d in harness.stores.decisions.decisions(a.agent_id)),
        key=lambda d: d.decision_id,
    )
    assert output["run_root"] == merkle_root(
        [str(d.outcome.commitment) for d in records if d.outcome]
    )
    assert harness.commitments.keys("commitments/runs/") == [
        "commitments/runs/20260301T000500Z-run-1.json"
    ]


def test_one_failing_agent_is_caught_while_six_complete(harness: Harness) -> None:
    harness.failing.add("kimi-k2")
    described = harness.run({}, "run-fail")
    assert described["status"] == "SUCCEEDED"
    assert results(described)["decisions"] == {"succeeded": 6, "failed": 1}
    # Finalize names the one agent that ended without a decision (the run's alert)
    assert results(described)["undecided"] == [f"{harness.cohort.cohort_id}.kimi-k2"]
    ((subject, message),) = harness.alerts.sent
    assert subject == "Forecaster Arena: 1 agent(s) failed in run run-fail"
    assert f"- {harness.cohort.cohort_id}.kimi-k2: failed" in message
    failed = harness.stores.decisions.decisions(f"{harness.cohort.cohort_id}.kimi-k2")
    assert failed[0].attempts == 3  # the Decide step was retried before the catch
    assert harness.stores.ledger.trades(f"{harness.cohort.cohort_id}.kimi-k2") == []


def test_a_rerun_of_the_same_input_creates_no_decision_and_no_trade(harness: Harness) -> None:
    harness.run({"week_start": "2026-03-01"}, "run-a")
    agents = harness.stores.cohorts.agents(harness.cohort.cohort_id)
    before = {
        a.agent_id: (
            harness.stores.ledger.trades(a.agent_id),
            harness.stores.decisions.decisions(a.agent_id),
        )
        for a in agents
    }
    described = harness.run({"week_start": "2026-03-01"}, "run-b")
    assert described["status"] == "SUCCEEDED"
    assert results(described)["decisions"] == {"already_decided": 7}
    after = {
        a.agent_id: (
            harness.stores.ledger.trades(a.agent_id),
            harness.stores.decisions.decisions(a.agent_id),
        )
        for a in agents
    }
    assert after == before


def test_max_concurrency_one_is_sequential(harness: Harness) -> None:
    described = harness.run(
        {
            "max_concurrency": 1,
            "agent_ids": [
                f"{harness.cohort.cohort_id}.gpt-5.1",
                f"{harness.cohort.cohort_id}.grok-4",
                f"{harness.cohort.cohort_id}.qwen-3-next",
            ],
        },
        "run-seq",
    )
    assert described["status"] == "SUCCEEDED"
    assert results(described)["decisions"] == {"succeeded": 3}
    spans = sorted(harness.calls)
    assert len(spans) == 3
    assert all(spans[i][1] <= spans[i + 1][0] for i in range(len(spans) - 1))


def scheduled_input(raw: dict[str, Any]) -> dict[str, Any]:
    """What the weekly schedule starts the decision run with, as synthesized."""
    for resource in raw["Resources"].values():
        if resource["Type"] == "AWS::Scheduler::Schedule":
            target = resource["Properties"]["Target"]
            if "StateMachine" in json.dumps(target["Arn"]):
                payload: dict[str, Any] = json.loads(target["Input"])
                return payload
    raise AssertionError("no schedule starts the decision run")


def test_the_scheduled_run_stays_within_a_new_accounts_lambda_quota(
    harness: Harness, raw: dict[str, Any]
) -> None:
    """A new account may have 10 concurrent executions; snapshot and resolve can run beside
    the run, so 8 are left. 17 agents (two live cohorts) started at once were throttled, and a
    throttled agent is retried three times, then recorded as failed."""
    earlier = Cohort.open(WEEK - timedelta(weeks=1), default_lineup(include_baselines=True))
    harness.stores.cohorts.create_cohort(earlier, earlier.agents())
    harness.delay[0] = 0.2  # every agent is still answering when the next starts
    quota = AccountConcurrency(limit=8)
    with routed_handlers(HANDLERS, quota):
        described = harness.run(scheduled_input(raw), "run-quota")
    assert described["status"] == "SUCCEEDED"
    assert results(described)["decisions"] == {"succeeded": 17}
    assert quota.throttled == 0, f"{quota.throttled} invocations throttled"
    assert quota.peak <= 8


class ProviderMeltdownError(Exception):
    """An error whose message is 20 KB (a provider's HTML error page, say)."""


def test_fifty_agents_failing_with_20_kb_causes_keep_the_run_state_small(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each failed agent's cause stays in the state until Finalize (Step Functions caps a
    state at 256 KB): whole causes (message and trace) overflowed it, the run failed and
    Finalize never sealed. Kept: the error's type and a bounded cause."""
    agents = [f"{harness.cohort.cohort_id}.family-{i:02d}" for i in range(50)]
    run_at = WEEK.replace(minute=5).isoformat()

    def prepare(event: dict[str, Any], context: Any) -> dict[str, Any]:
        ref = "universes/week-2026-03-01.json"
        items = [{"agent_id": a, "run_at": run_at, "universe_ref": ref} for a in agents]
        return {
            "run_at": run_at,
            "universe_ref": ref,
            "markets": 2,
            "items": items,
            "max_concurrency": 0,
        }

    def meltdown(*_args: Any) -> Any:
        raise ProviderMeltdownError("<html>" + "\N{COLLISION SYMBOL}" * 2_000 + "x" * 18_000)

    finalized: list[int] = []
    real_finalize = HANDLERS["FunctionsFinalize"]

    def finalize(event: dict[str, Any], context: Any) -> dict[str, Any]:
        finalized.append(len(json.dumps(event).encode()))
        return real_finalize(event, context)

    monkeypatch.setitem(HANDLERS, "FunctionsPrepare", prepare)
    monkeypatch.setitem(HANDLERS, "FunctionsFinalize", finalize)
    monkeypatch.setattr(entrypoints, "decide", meltdown)
    described = harness.run({}, "run-meltdown")
    assert described["status"] == "SUCCEEDED", described.get("error")
    assert results(described)["decisions"] == {"failed": 50}
    (size,) = finalized
    assert size < 128 * 1024, f"Finalize's input is {size} bytes"
    ((subject, message),) = harness.alerts.sent
    assert "50 agent(s) failed" in subject and "ProviderMeltdownError" in message
