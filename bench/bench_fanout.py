"""Decision fan-out: the synthesized state machine under moto, 7 agents whose model answers
after 1 s. Prints wall seconds with max_concurrency 1 (the reference's sequential run) and with
the default (all agents at once), and their ratio (target >= 5). Run with `make bench`.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import boto3
from moto import mock_aws

from arena_core import bootstrap
from arena_core.adapters.dynamodb import DynamoRepository, create_table_kwargs
from arena_core.adapters.s3_blobs import S3BlobStore
from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.domain.cohort import Agent, Cohort
from arena_core.domain.lineup import default_lineup
from arena_core.domain.market import Market, OutcomeQuote
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.clock import FixedClock
from arena_core.ports.llm import ChatMessage, LLMResponse
from arena_core.ports.market_source import MarketFetch, MarketSource
from arena_core.settings import ArenaSettings
from infra.local_run import (
    MOTO_CONFIG,
    AtomicClient,
    LocalWorkflow,
    lean_dynamodb,
    routed_handlers,
    synthesized_template,
)

WEEK = datetime(2026, 3, 1, tzinfo=UTC)
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


def map_seconds(workflow: LocalWorkflow, execution_arn: str) -> float:
    """Duration of the Map state alone (the fan-out), from the execution history."""
    events = workflow.client.get_execution_history(executionArn=execution_arn, maxResults=1000)[
        "events"
    ]
    entered = next(e["timestamp"] for e in events if e["type"] == "MapStateEntered")
    exited = next(e["timestamp"] for e in events if e["type"] == "MapStateExited")
    return (exited - entered).total_seconds()


def warm_up(template: dict, folder: Path) -> None:
    """One untimed execution first: both timed runs then start warm (imports, Jinja, the
    Tracer), as a deployed function does after its first invocation."""
    timed_run(template, 0, folder)


def timed_run(template: dict, max_concurrency: int, folder: Path) -> tuple[float, float]:
    with mock_aws(config=MOTO_CONFIG), routed_handlers(), lean_dynamodb():  # type: ignore[call-overload]
        client = AtomicClient(boto3.client("dynamodb"))
        client.create_table(**create_table_kwargs("bench"))
        repo = DynamoRepository(client, "bench")
        s3 = boto3.client("s3")
        s3.create_bucket(Bucket="audit")
        clock = FixedClock(WEEK)
        cohort = Cohort.open(WEEK, default_lineup(include_baselines=False))
        repo.create_cohort(cohort, cohort.agents())
        clock.set(WEEK.replace(minute=5))

        def agent_for(agent: Agent) -> ForecastAgent:
            del agent
            return SlowModel()

        bootstrap.reset(
            bootstrap.Container(
                ArenaSettings(table_name="bench", audit_bucket="audit"),
                clock=clock,
                overrides={
                    "repo": repo,
                    "blobs": S3BlobStore(s3, "audit"),
                    "market_source": OneMarket(),
                    "publisher": LocalFolderPublisher(folder),
                    "agent_for": agent_for,
                },
            )
        )
        workflow = LocalWorkflow(template)
        started = time.perf_counter()
        described = workflow.run({"max_concurrency": max_concurrency}, f"bench-{max_concurrency}")
        elapsed = time.perf_counter() - started
        assert described["status"] == "SUCCEEDED", described
        fan_out = map_seconds(workflow, described["executionArn"])
        bootstrap.reset()
        return elapsed, fan_out


def main() -> None:
    os.environ.update(
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ACCESS_KEY_ID="x",
        AWS_SECRET_ACCESS_KEY="x",
        POWERTOOLS_TRACE_DISABLED="true",
        POWERTOOLS_METRICS_NAMESPACE="ForecasterArena",
    )
    template = synthesized_template()
    with tempfile.TemporaryDirectory() as tmp:
        warm_up(template, Path(tmp) / "warm")
        sequential, sequential_map = timed_run(template, 1, Path(tmp) / "a")
        parallel, parallel_map = timed_run(template, 0, Path(tmp) / "b")
    print(f"agents=7 model_delay_s={DELAY}")
    print(f"execution_seconds max_concurrency=1: {sequential:.2f} (map state {sequential_map:.2f})")
    print(
        f"execution_seconds max_concurrency=default: {parallel:.2f} (map state {parallel_map:.2f})"
    )
    ratios = (
        f"ratio_execution={sequential / parallel:.2f} ratio_map={sequential_map / parallel_map:.2f}"
    )
    print(f"{ratios} target>=5")


if __name__ == "__main__":
    main()
