"""Wire the adapters once per cold start; handlers ask for the services they need.

Clients are created lazily so a function imports only what it uses (cold-start budget), and
``reset`` lets tests rebuild everything after changing the environment. ``agent_for`` is the
one place that decides which agent answers for a cohort member.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from arena_core.errors import ConfigurationError
from arena_core.ports.clock import Clock, SystemClock

if TYPE_CHECKING:  # imported when first used: keeps the handlers' import time low
    from arena_core.domain.cohort import Agent
    from arena_core.ports.agent import ForecastAgent
    from arena_core.settings import ArenaSettings


@dataclass
class Container:
    settings: ArenaSettings
    clock: Clock = field(default_factory=SystemClock)
    overrides: dict[str, Any] = field(default_factory=dict)

    @functools.cached_property
    def repo(self) -> Any:
        import boto3  # noqa: PLC0415 - lazily, per cold start

        from arena_core.adapters.dynamodb import DynamoRepository  # noqa: PLC0415

        return self.overrides.get("repo") or DynamoRepository(
            boto3.client("dynamodb"), self.settings.table_name
        )

    @functools.cached_property
    def blobs(self) -> Any:
        import boto3  # noqa: PLC0415

        from arena_core.adapters.s3_blobs import S3BlobStore  # noqa: PLC0415

        return self.overrides.get("blobs") or S3BlobStore(
            boto3.client("s3"), self.settings.audit_bucket
        )

    @functools.cached_property
    def market_source(self) -> Any:
        if "market_source" in self.overrides:
            return self.overrides["market_source"]
        import httpx  # noqa: PLC0415

        from arena_core.adapters.polymarket import GammaMarketSource  # noqa: PLC0415

        return GammaMarketSource(
            httpx.Client(), gamma_url=self.settings.gamma_url, clob_url=self.settings.clob_url
        )

    @functools.cached_property
    def publisher(self) -> Any:
        if "publisher" in self.overrides:
            return self.overrides["publisher"]
        if not self.settings.site_bucket:
            raise ConfigurationError("ARENA_SITE_BUCKET is not set")
        import boto3  # noqa: PLC0415

        from arena_core.adapters.site_publishers import S3SitePublisher  # noqa: PLC0415

        return S3SitePublisher(boto3.client("s3"), self.settings.site_bucket)

    @functools.cached_property
    def llm_client(self) -> Any:
        if "llm_client" in self.overrides:
            return self.overrides["llm_client"]
        if not self.settings.openrouter_secret_name:
            raise ConfigurationError("ARENA_OPENROUTER_SECRET_NAME is not set")
        import httpx  # noqa: PLC0415

        from arena_core.adapters.openrouter import OpenRouterClient  # noqa: PLC0415
        from arena_core.adapters.secrets import secret_api_key  # noqa: PLC0415

        return OpenRouterClient(
            httpx.Client(),
            secret_api_key(self.settings.openrouter_secret_name),
            base_url=self.settings.openrouter_base_url,
            total_timeout=self.settings.llm_timeout_seconds,
        )

    @property
    def lineup(self) -> tuple[Any, ...]:
        if "lineup" in self.overrides:
            chosen: tuple[Any, ...] = self.overrides["lineup"]
            return chosen
        from arena_core.domain.lineup import default_lineup  # noqa: PLC0415

        return default_lineup(
            include_llms=self.settings.include_llms,
            include_baselines=self.settings.include_baselines,
        )

    @property
    def lease(self) -> timedelta:
        return timedelta(minutes=self.settings.lease_minutes)

    def agent_for(self, agent: Agent) -> ForecastAgent:
        factory = self.overrides.get("agent_for")
        if factory is not None:
            chosen: ForecastAgent = factory(agent)
            return chosen
        from arena_core.domain.lineup import AgentKind  # noqa: PLC0415

        if agent.kind is AgentKind.BASELINE:
            from arena_core.agents.baselines import BASELINE_AGENTS, RandomAgent  # noqa: PLC0415

            if agent.model_id == "random":
                return RandomAgent(seed=self.settings.baseline_seed)
            return BASELINE_AGENTS[agent.model_id]()
        from arena_core.agents.llm import LLMAgent  # noqa: PLC0415

        model = self.settings.llm_model_override or agent.model_id
        return LLMAgent(self.llm_client, model, max_tokens=self.settings.llm_max_tokens)


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
