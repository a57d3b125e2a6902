"""The composition root: wire the adapters once per cold start; handlers ask for what they need.

Adapters are built lazily so a function imports only what it uses (cold-start budget); tests
and the local demo inject their own through ``Injected``, field by field. ``agent_for`` is the
one place that decides which agent answers for a cohort member.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING

from arena_core.errors import ConfigurationError
from arena_core.ports.clock import Clock, SystemClock

if TYPE_CHECKING:  # imported when first used: keeps the handlers' import time low
    from arena_core.adapters.object_lock import ObjectLock
    from arena_core.domain.cohort import Agent
    from arena_core.domain.lineup import AgentSpec
    from arena_core.ports.agent import ForecastAgent
    from arena_core.ports.alerts import Alerts
    from arena_core.ports.blob_store import BlobStore
    from arena_core.ports.commitment_store import CommitmentStore
    from arena_core.ports.llm import LLMClient
    from arena_core.ports.market_source import MarketSource
    from arena_core.ports.publisher import SitePublisher
    from arena_core.ports.spend_store import SpendStore
    from arena_core.ports.stores import Stores
    from arena_core.services.lineup import LineupService
    from arena_core.settings import ArenaSettings


@dataclass(frozen=True)
class Injected:
    """Adapters supplied from outside (tests, the local demo); None means "build from settings"."""

    stores: Stores | None = None
    reading_stores: Stores | None = None  # eventually consistent reads (default: ``stores``)
    blobs: BlobStore | None = None
    market_source: MarketSource | None = None
    publisher: SitePublisher | None = None
    commitments: CommitmentStore | None = None
    alerts: Alerts | None = None
    llm_client: LLMClient | None = None
    lineup: tuple[AgentSpec, ...] | None = None  # release 1 when the table has none yet
    agent_for: Callable[[Agent], ForecastAgent] | None = None
    spend: SpendStore | None = None


@dataclass
class Container:
    settings: ArenaSettings
    clock: Clock = field(default_factory=SystemClock)
    injected: Injected = field(default_factory=Injected)

    @functools.cached_property
    def stores(self) -> Stores:
        if self.injected.stores is not None:
            return self.injected.stores
        import boto3  # noqa: PLC0415 - lazily, per cold start

        from arena_core.adapters.dynamodb import dynamo_stores  # noqa: PLC0415

        days = self.settings.snapshot_ttl_days
        return dynamo_stores(
            boto3.client("dynamodb"),
            self.settings.table_name,
            snapshot_ttl=timedelta(days=days) if days else None,
        )

    @functools.cached_property
    def reading_stores(self) -> Stores:
        """The stores of readers that tolerate eventual consistency (a publication of the site,
        a snapshot pass's reads): on DynamoDB half the read units; at worst a read shows the
        table as it was a second earlier, and the next pass or publication, ten minutes later,
        catches up. Never used to decide a conditional write."""
        if self.injected.reading_stores is not None:
            return self.injected.reading_stores
        if self.injected.stores is not None:
            return self.injected.stores
        import boto3  # noqa: PLC0415

        from arena_core.adapters.dynamodb import dynamo_stores  # noqa: PLC0415

        return dynamo_stores(
            boto3.client("dynamodb"), self.settings.table_name, consistent_reads=False
        )

    @functools.cached_property
    def blobs(self) -> BlobStore:
        if self.injected.blobs is not None:
            return self.injected.blobs
        import boto3  # noqa: PLC0415

        from arena_core.adapters.s3_blobs import S3BlobStore  # noqa: PLC0415

        return S3BlobStore(boto3.client("s3"), self.settings.audit_bucket, lock=self.object_lock)

    @functools.cached_property
    def object_lock(self) -> ObjectLock | None:
        """The retention every committed object and audit record is written with, if any."""
        from arena_core.adapters.object_lock import object_lock  # noqa: PLC0415

        return object_lock(self.settings.object_lock_mode, self.settings.object_lock_days)

    @functools.cached_property
    def commitments(self) -> CommitmentStore | None:
        """The public commitments (the site bucket's commitments/ folder). None only where no
        site is configured (some tests): decisions are then committed but not published."""
        if self.injected.commitments is not None:
            return self.injected.commitments
        if not self.settings.site_bucket:
            return None
        import boto3  # noqa: PLC0415

        from arena_core.adapters.s3_commitments import S3CommitmentStore  # noqa: PLC0415

        return S3CommitmentStore(
            boto3.client("s3"), self.settings.site_bucket, lock=self.object_lock
        )

    @functools.cached_property
    def alerts(self) -> Alerts | None:
        """The operator's alerts (the alarm topic). None where no topic is configured (local
        runs, most tests): a run's failures are then only in its results and logs."""
        if self.injected.alerts is not None:
            return self.injected.alerts
        if not self.settings.alert_topic_arn:
            return None
        import boto3  # noqa: PLC0415

        from arena_core.adapters.sns_alerts import SnsAlerts  # noqa: PLC0415

        return SnsAlerts(boto3.client("sns"), self.settings.alert_topic_arn)

    @functools.cached_property
    def market_source(self) -> MarketSource:
        if self.injected.market_source is not None:
            return self.injected.market_source
        import httpx  # noqa: PLC0415

        from arena_core.adapters.polymarket import GammaMarketSource  # noqa: PLC0415

        return GammaMarketSource(
            httpx.Client(), gamma_url=self.settings.gamma_url, clob_url=self.settings.clob_url
        )

    @functools.cached_property
    def publisher(self) -> SitePublisher:
        if self.injected.publisher is not None:
            return self.injected.publisher
        if not self.settings.site_bucket:
            raise ConfigurationError("ARENA_SITE_BUCKET is not set")
        import boto3  # noqa: PLC0415

        from arena_core.adapters.site_publishers import S3SitePublisher  # noqa: PLC0415

        return S3SitePublisher(boto3.client("s3"), self.settings.site_bucket)

    @functools.cached_property
    def llm_client(self) -> LLMClient:
        if self.injected.llm_client is not None:
            return self.injected.llm_client
        if not self.settings.openrouter_parameter_name:
            raise ConfigurationError("ARENA_OPENROUTER_PARAMETER_NAME is not set")
        import httpx  # noqa: PLC0415

        from arena_core.adapters.openrouter import OpenRouterClient  # noqa: PLC0415
        from arena_core.adapters.secrets import parameter_api_key  # noqa: PLC0415

        return OpenRouterClient(
            httpx.Client(),
            parameter_api_key(self.settings.openrouter_parameter_name),
            base_url=self.settings.openrouter_base_url,
            total_timeout=self.settings.llm_timeout_seconds,
        )

    @property
    def lineups(self) -> LineupService:
        """The lineup releases; release 1 (seeded on first use) is the methodology's v1 table,
        or the injected lineup (the demo's stand-ins, say)."""
        from arena_core.services.lineup import LineupService  # noqa: PLC0415

        return LineupService(self.stores.lineups, self.clock, self.injected.lineup)

    @property
    def lease(self) -> timedelta:
        return timedelta(minutes=self.settings.lease_minutes)

    def agent_for(self, agent: Agent) -> ForecastAgent:
        if self.injected.agent_for is not None:
            return self.injected.agent_for(agent)
        from arena_core.domain.lineup import AgentKind  # noqa: PLC0415

        if agent.kind is AgentKind.BASELINE:
            from arena_core.agents.baselines import BASELINE_AGENTS, RandomAgent  # noqa: PLC0415

            if agent.model_id == "random":
                return RandomAgent(seed=self.settings.baseline_seed)
            return BASELINE_AGENTS[agent.model_id]()
        from arena_core.agents.llm import LLMAgent  # noqa: PLC0415

        model = self.settings.llm_model_override or agent.model_id
        llm = LLMAgent(self.llm_client, model, max_tokens=self.settings.llm_max_tokens)
        if self.settings.llm_weekly_budget is None:
            return llm
        from arena_core.agents.budget import BudgetedAgent  # noqa: PLC0415

        return BudgetedAgent(llm, self.spend, self.settings.llm_weekly_budget)

    @functools.cached_property
    def spend(self) -> SpendStore:
        """The week's LLM spend (the weekly budget's ledger), on the table."""
        if self.injected.spend is not None:
            return self.injected.spend
        import boto3  # noqa: PLC0415

        from arena_core.adapters.dynamodb.spend import DynamoSpendStore  # noqa: PLC0415
        from arena_core.adapters.dynamodb.table import Table  # noqa: PLC0415

        return DynamoSpendStore(Table(boto3.client("dynamodb"), self.settings.table_name))


_container: Container | None = None


def container() -> Container:
    """The process-wide container, built on first use from the environment."""
    global _container  # noqa: PLW0603 - one container per Lambda execution environment
    if _container is None:
        from arena_core.settings import ArenaSettings  # noqa: PLC0415

        _container = Container(ArenaSettings())
    return _container


def reset(new: Container | None = None) -> None:
    """Replace (or drop) the container: tests and the local demo wire their own."""
    global _container  # noqa: PLW0603
    _container = new
