"""A metered simulated week: the demo's run of the whole system, with every boto3 call and log
byte counted per function (``meter.Meter``)."""

from __future__ import annotations

import logging
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from arena_core.domain.lineup import AgentKind, AgentSpec
from arena_local.cost.meter import Meter
from arena_local.cost.model import Measured
from arena_local.demo.handlers import SCHEDULED
from arena_local.demo.markets import FIXTURES, choose_markets
from arena_local.demo.runner import AUDIT_BUCKET, DemoRun, RunOptions, demo_start
from arena_local.workflow import HANDLERS


def measure_week(
    template: dict[str, object],
    lineup: tuple[AgentSpec, ...],
    *,
    universe_size: int = 500,
    seed: int = 7,
) -> Measured:
    """One week from the coming Sunday, offline (the recorded Gamma dump)."""
    markets = choose_markets(path=None, seed=seed, fixtures_dir=FIXTURES, http=None)
    meter = Meter()
    with tempfile.TemporaryDirectory(prefix="arena-cost-") as tmp:
        site = Path(tmp) / "site"
        options = RunOptions(
            weeks=1,
            seed=seed,
            start=demo_start(datetime.now(UTC).date()),
            site_dir=site,
            lineup=lineup,
            universe_size=universe_size,
            log_level=logging.INFO,  # the deployed level: its log lines are counted
            # Daily windows: the week samples every kind of publication (a snapshot tick's,
            # the resolution pass's, the decision run's), which the model prices per scope.
            site_refresh_minutes=1440,
        )
        with meter.attached([HANDLERS, SCHEDULED]):
            report = DemoRun(options, markets, dict(template)).execute()
        site_bytes = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
    return Measured(
        usage=meter.usage,
        table_bytes=report.table_bytes,
        site_bytes=site_bytes,
        audit_bucket=AUDIT_BUCKET,
        agents=len(lineup),
        llm_agents=sum(spec.kind is AgentKind.LLM for spec in lineup),
    )
