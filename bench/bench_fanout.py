"""Decision fan-out: the synthesized state machine under moto, 7 agents whose model answers
after 1 s. Prints wall seconds with max_concurrency 1 (the reference's sequential run) and with
the default (all agents at once), and their ratio (target >= 5). Run with `make bench`.

The workflow runs as in the tests: moto's Step Functions interprets the synthesized definition,
moto's Lambda routes every task to the real handler in this process. It runs twice:

- ``storage=memory``: the handlers store through the ports' in-memory implementations (the
  ones the service tests use). This is the fan-out figure the target is about: what the state
  machine's Map buys over the sequential run.
- ``storage=moto``: DynamoDB and S3 emulated by moto as well. Printed for context: all seven
  "Lambdas", the emulated DynamoDB, S3 and Step Functions then share one interpreter, so the
  agents' storage work, which on AWS runs on seven CPUs while the others wait for their
  models, is serialized here; the parallel run's wall is about the model's 1 s plus the
  process CPU of the run (printed).

Each line also gives the top-level states' seconds from the execution history. The objects
built during setup (the CDK synth, moto's models) are frozen out of the garbage collector
first: a full collection over them pauses every thread for 0.2-0.4 s, at random points of
either run; a Lambda process holds none of them.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import boto3
from moto import mock_aws

from arena_core import bootstrap
from arena_core.adapters.dynamodb import create_table_kwargs, dynamo_stores
from arena_core.adapters.s3_blobs import S3BlobStore
from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.lineup import default_lineup
from arena_core.domain.market import Market, OutcomeQuote
from arena_core.observability import logger
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.blob_store import BlobStore
from arena_core.ports.clock import FixedClock
from arena_core.ports.llm import ChatMessage, LLMResponse
from arena_core.ports.market_source import MarketFetch, MarketSource
from arena_core.ports.stores import Stores
from arena_core.settings import ArenaSettings
from arena_local.memory import InMemoryBlobStore, memory_stores
from arena_local.moto_shims import AtomicClient, lean_dynamodb
from arena_local.workflow import MOTO_CONFIG, LocalWorkflow, routed_handlers, synthesized_template
from infra.validate import state_machine_definition

WEEK = datetime(2026, 3, 1, tzinfo=UTC)
MAP_STATE = "DecideEachAgent"
DELAY = float(os.environ.get("BENCH_MODEL_DELAY", "1.0"))


class SlowModel(ForecastAgent):
    def respond(self, messages: Sequence[ChatMessage], context: AgentContext) -> LLMResponse:
        del messages, context
        time.sleep(DELAY)
        text = json.dumps(
            {
                "action": "BET",
                "bets": [{"market_id": "m1", "side": "YES", "amount": 100}],
                "reasoning": "r",
            }
        )
        return LLMResponse(content=text, model="bench/slow", provider="bench", raw_body=text)


class OneMarket(MarketSource):
    market = Market(
        market_id="m1",
        question="Bench?",
        outcomes=(
            OutcomeQuote(name="Yes", price=Decimal("0.4")),
            OutcomeQuote(name="No", price=Decimal("0.6")),
        ),
    )

    def top_markets(self, limit: int = 500) -> MarketFetch:
        del limit
        return MarketFetch(markets={"m1": self.market}, requests=1)

    def markets_by_id(self, market_ids: Sequence[str]) -> MarketFetch:
        return MarketFetch(markets={"m1": self.market} if "m1" in market_ids else {}, requests=1)


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float
    states: dict[str, float]  # top-level state name -> seconds, from the execution history

    def describe(self) -> str:
        states = " ".join(f"{name} {seconds:.2f}" for name, seconds in self.states.items())
        return f"{self.wall:.2f} (cpu {self.cpu:.2f}; {states})"


def state_seconds(
    workflow: LocalWorkflow, execution_arn: str, top_level: Sequence[str]
) -> dict[str, float]:
    """Wall seconds of each top-level state (Prepare, the Map, Finalize), from the history."""
    events = workflow.client.get_execution_history(executionArn=execution_arn, maxResults=1000)[
        "events"
    ]
    entered: dict[str, datetime] = {}
    seconds: dict[str, float] = {}
    for event in events:
        details = event.get("stateEnteredEventDetails") or event.get("stateExitedEventDetails")
        if details is None or details["name"] not in top_level:
            continue
        name, at = details["name"], event["timestamp"]
        if "stateEnteredEventDetails" in event:
            entered[name] = at
        else:
            seconds[name] = (at - entered[name]).total_seconds()
    return {name: seconds[name] for name in top_level if name in seconds}


def moto_storage() -> tuple[Stores, BlobStore]:
    client = AtomicClient(boto3.client("dynamodb"))
    client.create_table(**create_table_kwargs("bench"))
    s3 = boto3.client("s3")
    s3.create_bucket(Bucket="audit")
    return dynamo_stores(client, "bench"), S3BlobStore(s3, "audit")


def memory_storage() -> tuple[Stores, BlobStore]:
    return memory_stores(), InMemoryBlobStore()


STORAGE = {"memory": memory_storage, "moto": moto_storage}


def timed_run(template: dict, storage: str, max_concurrency: int, folder: Path) -> Timing:
    with mock_aws(config=MOTO_CONFIG), routed_handlers(), lean_dynamodb():  # type: ignore[call-overload]
        stores, blobs = STORAGE[storage]()
        clock = FixedClock(WEEK)
        cohort = Cohort.open(WEEK, default_lineup(include_baselines=False))
        stores.cohorts.create_cohort(cohort, cohort.agents())
        clock.set(WEEK.replace(minute=5))

        def agent_for(agent: Agent) -> ForecastAgent:
            del agent
            return SlowModel()

        bootstrap.reset(
            bootstrap.Container(
                ArenaSettings(table_name="bench", audit_bucket="audit"),
                clock=clock,
                injected=bootstrap.Injected(
                    stores=stores,
                    blobs=blobs,
                    market_source=OneMarket(),
                    publisher=LocalFolderPublisher(folder),
                    agent_for=agent_for,
                ),
            )
        )
        workflow = LocalWorkflow(template)
        started, cpu_started = time.perf_counter(), time.process_time()
        described = workflow.run({"max_concurrency": max_concurrency}, f"bench-{max_concurrency}")
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        assert described["status"] == "SUCCEEDED", described
        top_level = list(state_machine_definition(template)["States"])
        states = state_seconds(workflow, described["executionArn"], top_level)
        bootstrap.reset()
        return Timing(elapsed, cpu, states)


def measure(template: dict, storage: str, folder: Path) -> None:
    timed_run(template, storage, 0, folder / "warm")  # untimed: both timed runs start warm
    sequential = timed_run(template, storage, 1, folder / "sequential")
    parallel = timed_run(template, storage, 0, folder / "parallel")
    map_ratio = sequential.states[MAP_STATE] / parallel.states[MAP_STATE]
    print(f"storage={storage}")
    print(f"  execution_seconds max_concurrency=1: {sequential.describe()}")
    print(f"  execution_seconds max_concurrency=default: {parallel.describe()}")
    print(f"  ratio_execution={sequential.wall / parallel.wall:.2f} ratio_map={map_ratio:.2f}")


def main() -> None:
    os.environ.update(
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ACCESS_KEY_ID="x",
        AWS_SECRET_ACCESS_KEY="x",
        POWERTOOLS_TRACE_DISABLED="true",
        POWERTOOLS_METRICS_DISABLED="true",  # as in the demo: no EMF lines between the figures
        POWERTOOLS_METRICS_NAMESPACE="ForecasterArena",
    )
    logger.setLevel(logging.WARNING)
    template = synthesized_template()
    gc.collect()
    gc.freeze()
    print(f"agents=7 model_delay_s={DELAY} (target: ratio_execution >= 5 with storage=memory)")
    with tempfile.TemporaryDirectory() as tmp:
        for storage in STORAGE:
            measure(template, storage, Path(tmp) / storage)


if __name__ == "__main__":
    main()
