"""A metered steady state: the default deployment after a year, ``live_cohorts`` cohorts live.

The demo's whole system runs on embedded AWS (``demo.runner``) in three phases:

1. the year's completed cohorts are written straight into the stores (``history.py``): their
   scores, final snapshots, series points and published pages;
2. the live cohorts open and trade week by week, as deployed (the weekly decision runs through
   the synthesized state machine, the families' stand-ins answering), with passes and
   resolutions every ``warm_up_hours`` and no publication but the weekly one: this phase is not
   metered, it only builds the state the sample runs on;
3. the sample: from the Sunday 00:00 when the last live cohort opens, every schedule of the
   template fires as deployed (the cohort opener, the decision run, a pass every 10 minutes
   with the publication its time calls for, the hourly resolution) for ``sample_hours``, every
   request, read and write unit, site upload and second metered per function and publication.
   Each scheduled invocation starts cold (its stores' caches empty), as a function invoked every
   ten minutes or less often mostly does.

The sample's first hour is the week's run hour: its passes and resolution see the positions the
run has just opened, close the day's and the week's series buckets, and cost about three times
a typical hour's. They happen once a week, not every hour, so the passes and resolutions are
costed from the sample's other hours (``TYPICAL``; the run hour's extra, once a week, is below
a cent a month); the weekly run and every publication keep their own measurement, run hour
included.
"""

from __future__ import annotations

import copy
import logging
import tempfile
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from arena_core import bootstrap
from arena_core.adapters.dynamodb import dynamo_stores
from arena_core.adapters.manifest import ManifestPublisher
from arena_core.analysis import tdist, validity
from arena_core.domain.cohort import cohort_id_for
from arena_core.domain.lineup import AgentKind, AgentSpec
from arena_core.observability import logger
from arena_core.ports.llm import LLMClient
from arena_core.ports.stores import Stores
from arena_core.site.environment import environment
from arena_local.cost.history import seed_history
from arena_local.cost.init import init_seconds
from arena_local.cost.meter import Meter, Usage
from arena_local.cost.site_meter import MeteredPublisher, TableStats, table_stats
from arena_local.demo.handlers import SCHEDULED
from arena_local.demo.markets import FIXTURES, choose_markets
from arena_local.demo.runner import AUDIT_BUCKET, WEEK, DemoRun, RunOptions, RunReport, demo_start
from arena_local.demo.schedule import Schedule
from arena_local.workflow import HANDLERS, LocalWorkflow

SIMULATION_BANNER = b'aria-label="Simulation"'  # a simulated build's banner (site/build.py)
TYPICAL = ("Snapshot", "Resolve")  # costed from the sample's hours after the run hour
RUN_HOUR = timedelta(hours=1)


@dataclass(frozen=True)
class SteadyState:
    """What is simulated: ``live_cohorts`` live, ``history_weeks`` completed before them."""

    live_cohorts: int = 5
    history_weeks: int = 47  # with the 5 live: a year of weekly cohorts
    scores_per_agent: int = 30  # scored bets per agent and cohort in the history
    sample_hours: int = 6
    span_hours: int = 0  # metered on past the sample (0: not): a longer span to compare with
    warm_up_hours: int = 2  # passes and resolutions while the live cohorts build up, this often
    universe_size: int = 500
    seed: int = 7
    ttl_days: int = 30  # raw snapshots' and raw series points' TTL, as deployed


@dataclass(frozen=True)
class Measured:
    """A metered sample of the steady state: usage per function and publication scope, the
    table before and after the sample, and what the run was."""

    usage: dict[str, Usage]
    sample_hours: float
    table_before: TableStats
    table_after: TableStats
    site_bytes: int
    audit_bucket: str
    agents: int  # per cohort
    llm_agents: int
    steady: SteadyState
    refresh_minutes: int  # the deployment's site refresh window, as the sample ran it
    cohort_site_bytes: int  # a cohort's pages, tables and decision pages (the oldest live)
    init_seconds: dict[str, float]  # a cold start's INIT, by function
    span_usage: dict[str, Usage] | None = None  # metered over ``steady.span_hours``
    simulated_pages: int = 0  # pages naming a simulation (none: rendered as deployed)


def measure_steady_state(
    template: dict[str, Any],
    lineup: tuple[AgentSpec, ...],
    steady: SteadyState,
    *,
    runtime_init_seconds: float = 0.15,
) -> Measured:
    markets = choose_markets(path=None, seed=steady.seed, fixtures_dir=FIXTURES, http=None)
    with tempfile.TemporaryDirectory(prefix="arena-cost-") as tmp:
        site = Path(tmp) / "site"
        options = RunOptions(
            weeks=steady.live_cohorts,
            seed=steady.seed,
            start=demo_start(datetime.now(UTC).date()),
            site_dir=site,
            lineup=as_deployed(lineup),
            universe_size=steady.universe_size,
            simulation="",  # metered as deployed: no page names a simulation (see as_deployed)
        )
        run = SteadyRun(options, markets, dict(template), steady)
        run.execute()
        site_bytes = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
        simulated = sum(SIMULATION_BANNER in f.read_bytes() for f in site.rglob("*.html"))
        oldest = cohort_id_for(options.start)
        cohort_bytes = sum(
            f.stat().st_size
            for f in site.rglob("*")
            if f.is_file() and oldest in str(f.relative_to(site))
        )
    return Measured(
        usage=run.sample_usage,
        span_usage=run.span_usage if steady.span_hours else None,
        sample_hours=steady.sample_hours,
        table_before=run.before,
        table_after=run.after,
        site_bytes=site_bytes,
        audit_bucket=AUDIT_BUCKET,
        agents=len(lineup),
        llm_agents=sum(spec.kind is AgentKind.LLM for spec in lineup),
        steady=steady,
        refresh_minutes=run.refresh_minutes,
        cohort_site_bytes=cohort_bytes,
        simulated_pages=simulated,
        init_seconds=init_seconds(runtime_init_seconds),
    )


def as_deployed(lineup: tuple[AgentSpec, ...]) -> tuple[AgentSpec, ...]:
    """The lineup as a deployment runs it: no agent flagged a stand-in (the stand-ins still
    answer, through their server, for the models they stand in for). A simulated build's pages
    carry a banner and a footer with the time they were drawn, so every page would differ at
    every publication and be uploaded again: a deployment's pages carry neither."""
    return tuple(spec.model_copy(update={"stand_in": False}) for spec in lineup)


class SteadyRun(DemoRun):
    """The demo's run, driven through the three phases above."""

    def __init__(
        self,
        options: RunOptions,
        markets: Any,
        template: dict[str, Any],
        steady: SteadyState,
    ) -> None:
        super().__init__(options, markets, template)
        self.steady = steady
        self.meter = Meter()
        self.deployed = list(self.schedules)
        self.refresh_minutes = _refresh_minutes(template)
        self.metering = False
        self.before = self.after = TableStats()
        self.sample_usage: dict[str, Usage] = {}
        self.span_usage: dict[str, Usage] = {}

    def _llm_client(self, resources: ExitStack) -> LLMClient | None:
        """The stand-ins' server answers for every model, as deployed models would."""
        return self._stand_in_client(resources)

    def _finish(self, stores: Stores, report: RunReport) -> None:
        """Nothing: the sample's measurements are the result."""

    def _run_weeks(self, workflow: LocalWorkflow, report: RunReport) -> None:
        del report  # the sample's measurements stay on the run
        container = bootstrap.container()
        inner = container.publisher
        if not isinstance(inner, ManifestPublisher):  # the demo's folder, metered as S3
            raise TypeError("the cost model meters a manifest publisher")
        publisher = MeteredPublisher(inner, self.meter)
        container.injected = replace(container.injected, publisher=publisher)
        container.__dict__.pop("publisher", None)
        seed_history(
            container.stores,
            self.options.lineup,
            first_live=self.options.start,
            weeks=self.steady.history_weeks,
            scores_per_agent=self.steady.scores_per_agent,
            seed=self.steady.seed,
        )
        self.schedules = [_warm_up(s, self.steady.warm_up_hours) for s in self.deployed]
        for week in range(self.steady.live_cohorts - 1):
            self._simulate_week(workflow, self.options.start + week * WEEK)
        sample = self.options.start + (self.steady.live_cohorts - 1) * WEEK
        self.schedules = self.deployed
        container.settings = container.settings.model_copy(
            update={
                "site_refresh_minutes": self.refresh_minutes,
                "leaderboard_refresh_minutes": 10,
            }
        )
        self.before = table_stats(*self._table)
        self.metering = True
        end = sample + timedelta(hours=self.steady.sample_hours)
        logger.setLevel(logging.INFO)  # the deployed level: the sample's log lines are counted
        with self.meter.attached([HANDLERS, SCHEDULED]), self._through_botocore():
            self._simulate(workflow, sample, sample + RUN_HOUR)
            run_hour = copy.deepcopy(self.meter.usage)
            self._simulate(workflow, sample + RUN_HOUR, end)
            self.after = table_stats(*self._table)
            self.sample_usage = typical(self.meter.usage, run_hour)
            if self.steady.span_hours > self.steady.sample_hours:
                self._simulate(workflow, end, sample + timedelta(hours=self.steady.span_hours))
                self.span_usage = typical(self.meter.usage, run_hour)
        self.metering = False

    def _through_botocore(self) -> AbstractContextManager[None]:
        """The demo's DynamoDB requests through botocore while the sample is metered: the
        meter counts requests there and keeps moto's time out of the functions' (the weeks
        before it, which only build the state, take the demo's direct path)."""
        direct = self.direct_dynamodb
        return direct.through_boto3() if direct is not None else nullcontext()

    def _deliver(self, schedule: Schedule) -> None:
        if self.metering:
            self._cold_start()
        super()._deliver(schedule)

    def _decision_run(self, workflow: LocalWorkflow, schedule: Schedule, moment: datetime) -> None:
        if self.metering:
            self._cold_start()
        super()._decision_run(workflow, schedule, moment)

    def _cold_start(self) -> None:
        """New stores on the same table, no critical value or validity file cached, templates
        compiled again: no cache survives from the last invocation."""
        tdist.critical_value.cache_clear()
        validity.results.cache_clear()
        environment.cache_clear()
        container = bootstrap.container()
        client, table = self._table
        container.injected = replace(
            container.injected,
            stores=dynamo_stores(client, table),
            reading_stores=dynamo_stores(client, table, consistent_reads=False),
        )
        for cached in ("stores", "reading_stores"):
            container.__dict__.pop(cached, None)


def typical(usage: dict[str, Usage], run_hour: dict[str, Usage]) -> dict[str, Usage]:
    """``usage`` with the passes' and resolutions' run hour taken out (``TYPICAL``)."""
    found = copy.deepcopy(usage)
    for name in TYPICAL:
        if name in found and name in run_hour:
            found[name] = found[name].without(run_hour[name])
    return found


def _warm_up(schedule: Schedule, hours: int) -> Schedule:
    """Passes and resolutions every ``hours`` while the live cohorts build up."""
    if schedule.target in ("Snapshot", "Resolve"):
        return replace(schedule, expression=f"rate({hours} hours)")
    return schedule


def _refresh_minutes(template: dict[str, Any]) -> int:
    for resource in template["Resources"].values():
        env = resource.get("Properties", {}).get("Environment", {}).get("Variables", {})
        if "ARENA_SITE_REFRESH_MINUTES" in env:
            return int(env["ARENA_SITE_REFRESH_MINUTES"])
    return 30


__all__ = ["Measured", "RunReport", "SteadyState", "measure_steady_state"]
