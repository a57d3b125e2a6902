"""One simulated run of the whole system on embedded AWS, in-process.

moto provides DynamoDB (the app's table, same key schema), S3 (the audit bucket) and Step
Functions, which executes the state machine definition ``cdk synth`` produces, with every Lambda
task routed to the real handler (``infra.local_run``). A simulated clock walks through the
simulated weeks minute by minute and fires the template's schedules as deployed: Sunday 00:00
open the cohort, Sunday 00:05 the decision run, a snapshot every 10 minutes, resolution hourly.
Scheduled functions are the real handlers, called as Lambda would call them. The audit bucket
has Object Lock, as deployed, and every audit record is written with a retention.

Markets are raw Gamma payloads served by ``GammaReplay`` to the real Polymarket client; their
prices and resolutions follow ``arena_local.simulation.PriceSimulation`` (seeded). The site is
written to a local folder instead of the site bucket, the commitments beside its pages.
"""

from __future__ import annotations

import logging
import os
import re
import time
import uuid
import warnings
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import httpx
from botocore import UNSIGNED
from botocore.config import Config
from moto import mock_aws

from arena_core import bootstrap, entrypoints
from arena_core.adapters.dynamodb import create_table_kwargs, dynamo_stores
from arena_core.adapters.object_lock import ObjectLock
from arena_core.adapters.polymarket import GammaMarketSource
from arena_core.adapters.rate_limit import TokenBucket
from arena_core.adapters.s3_blobs import S3BlobStore
from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.constants import ObjectLockMode
from arena_core.domain.cohort import week_start_for
from arena_core.domain.lineup import AgentSpec
from arena_core.domain.panel import Methodology
from arena_core.domain.panel_design import PANEL_SIZE
from arena_core.observability import logger
from arena_core.ports.clock import FixedClock
from arena_core.ports.llm import LLMClient
from arena_core.ports.stores import Stores
from arena_core.publication.plan import WEEKLY
from arena_core.settings import ArenaSettings
from arena_local.cost.site_meter import table_bytes
from arena_local.demo.errors import DemoError
from arena_local.demo.faults import ASYNC_RETRIES, FaultInjector, faulty_stores
from arena_local.demo.ledger import export_ledger
from arena_local.demo.markets import MarketChoice
from arena_local.demo.schedule import Schedule, firings, schedules_from
from arena_local.memory import FolderCommitmentStore
from arena_local.moto_direct import DirectDynamoDB
from arena_local.moto_shims import AtomicClient, lean_dynamodb
from arena_local.publications import last_publications
from arena_local.replay import GammaReplay
from arena_local.simulation import PriceSimulation
from arena_local.standins import StandInModels, StandInServer, foresight_from
from arena_local.status import Execution, Status, collect
from arena_local.workflow import (
    MOTO_CONFIG,
    LambdaContext,
    LambdaCrash,
    LocalWorkflow,
    routed_handlers,
)

TABLE = "arena-demo"
AUDIT_BUCKET = "arena-demo-audit"
AUDIT_LOCK = ObjectLock(ObjectLockMode.GOVERNANCE, days=1)  # retention of the audit records
WEEK = timedelta(weeks=1)
EMBEDDED_ENV = {
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "demo",
    "AWS_SECRET_ACCESS_KEY": "demo",
    "AWS_SESSION_TOKEN": "demo",
    "POWERTOOLS_TRACE_DISABLED": "true",
}


@dataclass(frozen=True)
class LLMOptions:
    """Real models: OpenRouter (the key from OPENROUTER_API_KEY) or any compatible server."""

    api_key: str | None
    base_url: str
    model_override: str | None = None
    timeout_seconds: float = 240.0


@dataclass(frozen=True)
class RunOptions:
    weeks: int
    seed: int
    start: datetime
    site_dir: Path
    lineup: tuple[AgentSpec, ...]
    llm: LLMOptions | None = None
    site_refresh_minutes: int = 10080  # weekly, plus every decision run and the end
    # Every snapshot tick regenerates the leaderboard when deployed (10); the demo, by default,
    # once per site refresh window (None), which keeps a simulated week quick.
    leaderboard_refresh_minutes: int | None = None
    universe_size: int = 500
    methodology: Methodology = Methodology.V1
    panel_size: int = PANEL_SIZE  # K under v1+panel
    # A real DynamoDB endpoint (DynamoDB Local, say) instead of moto's: requests then run with
    # true concurrency, each run in a table of its own.
    dynamodb_endpoint: str | None = None
    log_level: int = logging.WARNING  # the progress bar tells what happens; cost counts INFO
    simulation: str = "clock,prices"  # what the site says is simulated (see site.build)
    # Snapshot passes every this many minutes (a multiple of the deployed 10, dividing 60: the
    # first pass of each hour still closes it). The deployed cadence by default; the suite's
    # slowest demos, which check faults and lineups rather than marking, run fewer passes.
    pass_minutes: int = 10

    def __post_init__(self) -> None:
        if self.pass_minutes not in (10, 20, 30, 60):
            raise ValueError(f"passes every {self.pass_minutes} minutes: 10, 20, 30 or 60")


@dataclass
class Tally:
    """What the progress bar shows, and what the run reports."""

    moment: datetime | None = None
    decisions: int = 0
    trades: int = 0
    settled: int = 0
    snapshots: int = 0
    executions: int = 0


@dataclass
class RunReport:
    ledger: dict[str, list[dict[str, Any]]]
    tally: Tally
    week_seconds: list[float] = field(default_factory=list)
    setup_seconds: float = 0.0
    status: Status | None = None  # what ``arena status`` says at the end of the run
    table_bytes: dict[str, int] = field(default_factory=dict)  # item sizes by entity, at the end


Progress = Callable[[Tally, float], None]  # (tally, fraction of the simulated span done)


def _quiet(tally: Tally, done: float) -> None:
    del tally, done


def demo_start(day: date) -> datetime:
    """The Sunday 00:00 UTC on or before ``day``: the first cohort's week."""
    return week_start_for(datetime(day.year, day.month, day.day, tzinfo=UTC))


# moto checks neither signatures nor (beyond what it parses) parameters, and the tests keep
# botocore's own checks on every request the stores make: the demo's embedded client skips
# both, a fifth of each request's cost.
EMBEDDED_CLIENT = Config(parameter_validation=False, signature_version=UNSIGNED)


class DemoRun:
    def __init__(
        self,
        options: RunOptions,
        markets: MarketChoice,
        template: dict[str, Any],
        injector: FaultInjector | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.options = options
        self.markets = markets
        self.template = template
        self.injector = injector
        self.progress = progress or _quiet
        self.tally = Tally()
        self.direct_dynamodb: DirectDynamoDB | None = None  # on embedded moto, once provisioned
        self.executions: list[Execution] = []  # the decision runs, as Step Functions lists them
        self.clock = FixedClock(options.start)
        self.schedules: list[Schedule] = schedules_from(template)
        horizon = options.weeks * WEEK
        self.simulation = PriceSimulation(
            markets.payloads,
            seed=options.seed,
            start=options.start,
            horizon=horizon,
            settle_open_by_end_date=markets.live,
            settle=markets.settle,
        )

    def execute(self) -> RunReport:
        saved = {name: os.environ.get(name) for name in EMBEDDED_ENV}
        os.environ.update(EMBEDDED_ENV)
        level = logger.log_level
        logger.setLevel(self.options.log_level)
        try:
            return self._execute()
        finally:
            logger.setLevel(level)
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    def _execute(self) -> RunReport:
        started = time.perf_counter()
        with (
            warnings.catch_warnings(),
            mock_aws(config=self._moto_config()),  # type: ignore[call-overload]
            routed_handlers(),
            lean_dynamodb(),
            ExitStack() as resources,  # the stand-ins' server and client, when they run
        ):
            warnings.simplefilter("ignore")
            stores = self._provision(self._llm_client(resources))
            workflow = LocalWorkflow(self.template, name="arena-demo-decisions")
            report = RunReport(ledger={}, tally=self.tally)
            report.setup_seconds = time.perf_counter() - started
            try:
                self._run_weeks(workflow, report)
                self._finish(stores, report)
            finally:
                bootstrap.reset()
        return report

    def _run_weeks(self, workflow: LocalWorkflow, report: RunReport) -> None:
        for week in range(self.options.weeks):
            began = time.perf_counter()
            self._simulate_week(workflow, self.options.start + week * WEEK)
            report.week_seconds.append(time.perf_counter() - began)

    def _finish(self, stores: Stores, report: RunReport) -> None:
        """The closing publication, and what the run reports."""
        entrypoints.publish_site(bootstrap.container(), WEEKLY)
        report.ledger = export_ledger(stores)
        site = str(self.options.site_dir.resolve())
        published = last_publications(LocalFolderPublisher(self.options.site_dir))
        report.status = collect(
            stores, self.clock.now(), self.executions, 0, site, publications=published
        )
        report.table_bytes = dict(table_bytes(*self._table))

    def _moto_config(self) -> dict[str, Any]:
        """moto for everything, except DynamoDB when a real endpoint is given."""
        endpoint = self.options.dynamodb_endpoint
        if endpoint is None:
            return MOTO_CONFIG
        passthrough = {"urls": [re.escape(endpoint) + ".*"]}
        return {**MOTO_CONFIG, "core": {"passthrough": passthrough}}

    def _dynamodb(self) -> tuple[Any, str]:
        """A DynamoDB client and a table created with the deployed key schema."""
        endpoint = self.options.dynamodb_endpoint
        if endpoint is not None:
            client = boto3.client("dynamodb", endpoint_url=endpoint)
            table = f"{TABLE}-{uuid.uuid4().hex[:12]}"
            client.create_table(**create_table_kwargs(table))
            return client, table
        embedded = boto3.client("dynamodb", config=EMBEDDED_CLIENT)
        embedded.create_table(**create_table_kwargs(TABLE))
        # moto: its requests straight to its handler (``moto_direct``), one at a time, as
        # DynamoDB applies each atomically
        self.direct_dynamodb = DirectDynamoDB(embedded, TABLE)
        return AtomicClient(self.direct_dynamodb), TABLE

    def _llm_client(self, resources: ExitStack) -> LLMClient | None:
        """Real models when configured; else, for a lineup with stand-ins, their local server
        (started here, stopped with ``resources``) behind the same client a real server gets."""
        llm = self.options.llm
        standins = any(spec.stand_in for spec in self.options.lineup)
        if llm is not None:
            if standins:
                raise DemoError("stand-ins run only without real models: choose one or the other")
            return _llm_client(llm)
        if not standins:
            return None
        return self._stand_in_client(resources)

    def _stand_in_client(self, resources: ExitStack) -> LLMClient:
        """The stand-ins' local server (started here, stopped with ``resources``) behind the
        client a real server gets: it answers for any model id ``standin/<family>``."""
        models = StandInModels(foresight_from(self.simulation), seed=self.options.seed)
        server = resources.enter_context(StandInServer(models))
        http = resources.enter_context(httpx.Client())
        return _llm_client(LLMOptions(api_key=None, base_url=server.base_url), http)

    def _provision(self, llm_client: LLMClient | None) -> Stores:
        """The table and audit bucket as the CDK app creates them, and the wired container."""
        dynamodb, table = self._dynamodb()
        self._table = (dynamodb, table)
        s3 = AtomicClient(boto3.client("s3"))  # moto's S3 is not atomic per request either
        # As deployed: Object Lock enabled, every audit record retained when written.
        s3.create_bucket(Bucket=AUDIT_BUCKET, ObjectLockEnabledForBucket=True)
        stores = dynamo_stores(dynamodb, table)
        self._stores = stores  # the demo's own reads bypass fault injection
        replay = GammaReplay(
            self.markets.payloads,
            live=lambda market_id: self.simulation.fields_for(market_id, self.clock.now()),
        )
        source = GammaMarketSource(
            httpx.Client(transport=replay.transport()),
            limiter=TokenBucket(rate=10_000, burst=10_000),
        )
        llm = self.options.llm
        # Publications read as deployed: eventually consistent (the meter bills them so).
        reading_stores = dynamo_stores(dynamodb, table, consistent_reads=False)
        injected = bootstrap.Injected(
            stores=faulty_stores(stores, self.injector) if self.injector else stores,
            reading_stores=faulty_stores(reading_stores, self.injector)
            if self.injector
            else reading_stores,
            blobs=S3BlobStore(s3, AUDIT_BUCKET, lock=AUDIT_LOCK),
            market_source=source,
            publisher=LocalFolderPublisher(self.options.site_dir),
            # The commitments beside the pages, under commitments/ (write-once files).
            commitments=FolderCommitmentStore(self.options.site_dir),
            lineup=self.options.lineup,
            llm_client=llm_client,
        )
        settings = ArenaSettings(
            table_name=table,
            audit_bucket=AUDIT_BUCKET,
            universe_size=self.options.universe_size,
            baseline_seed=self.options.seed,
            site_refresh_minutes=self.options.site_refresh_minutes,
            leaderboard_refresh_minutes=self.options.leaderboard_refresh_minutes
            or self.options.site_refresh_minutes,
            llm_model_override=llm.model_override if llm else None,
            methodology=self.options.methodology,
            panel_size=self.options.panel_size,
            simulation=self.options.simulation,
        )
        bootstrap.reset(bootstrap.Container(settings, clock=self.clock, injected=injected))
        return stores

    def _simulate_week(self, workflow: LocalWorkflow, week_start: datetime) -> None:
        self._simulate(workflow, week_start, week_start + WEEK)

    def _simulate(self, workflow: LocalWorkflow, start: datetime, end: datetime) -> None:
        """Fire every schedule due in [start, end), in order, as deployed."""
        total = (self.options.weeks * WEEK).total_seconds()
        for moment, schedule in firings(self.schedules, start, end):
            if schedule.target == "Snapshot" and moment.minute % self.options.pass_minutes:
                continue  # a coarser cadence asked for (``RunOptions.pass_minutes``)
            self.clock.set(moment)
            self.tally.moment = moment
            if schedule.target == "workflow":
                self._decision_run(workflow, schedule, moment)
            else:
                self._deliver(schedule)
            self.progress(self.tally, (moment - self.options.start).total_seconds() / total)

    def _decision_run(self, workflow: LocalWorkflow, schedule: Schedule, moment: datetime) -> None:
        runs = 2 if self.injector else 1  # --faults: two concurrent executions of the same run
        name = f"run-{moment:%Y%m%dT%H%M}"
        arns = [workflow.start(schedule.payload, f"{name}-{i}") for i in range(runs)]
        for arn in arns:
            described = workflow.wait(arn)
            status = str(described["status"])
            self.executions.append(
                Execution(name=arn.rsplit(":", 1)[-1], status=status, started=moment)
            )
            if status != "SUCCEEDED":
                raise DemoError(f"decision run {arn} ended {status}")
            self.tally.executions += 1
        if self.injector:
            self.injector.concurrent_runs += runs - 1
        self._count_ledger()

    def _deliver(self, schedule: Schedule) -> None:
        from arena_local.demo.handlers import SCHEDULED  # noqa: PLC0415 - imports every handler

        handler = SCHEDULED[schedule.target]
        duplicate = self.injector is not None and (
            schedule.target == "OpenCohort" or self.injector.duplicate()
        )
        for _ in range(2 if duplicate else 1):
            result = self._invoke_with_async_retries(handler, schedule.payload)
            self.tally.settled += sum(result.get("settled", {}).values())
        self.tally.snapshots += schedule.target == "Snapshot"

    def _invoke_with_async_retries(
        self, handler: Callable[[dict[str, Any], Any], dict[str, Any]], payload: dict[str, Any]
    ) -> dict[str, Any]:
        """Lambda retries a failed asynchronous invocation twice (the scheduler invokes so)."""
        for attempt in range(1 + ASYNC_RETRIES):
            try:
                return handler(dict(payload), LambdaContext())
            except LambdaCrash:
                if self.injector is None or attempt == ASYNC_RETRIES:
                    raise
                self.injector.retries += 1
        raise AssertionError("unreachable")

    def _count_ledger(self) -> None:
        """Decisions and trades so far (read after each decision run: a few queries)."""
        stores = self._stores
        decisions = trades = 0
        for cohort in stores.cohorts.cohorts():
            for agent in stores.cohorts.agents(cohort.cohort_id):
                records = stores.views.agent_records(agent.agent_id)
                decisions += len(records.decisions)
                trades += len(records.trades)
        self.tally.decisions, self.tally.trades = decisions, trades


def _llm_client(llm: LLMOptions, http: httpx.Client | None = None) -> LLMClient:
    """Real models: OpenRouter or any OpenAI-compatible server (the stand-ins' included)."""
    from arena_core.adapters.openrouter import OpenRouterClient  # noqa: PLC0415

    key = llm.api_key
    return OpenRouterClient(
        http or httpx.Client(),
        lambda: key,
        base_url=llm.base_url,
        total_timeout=llm.timeout_seconds,
    )
