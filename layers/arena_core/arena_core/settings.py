"""Settings from the environment (``ARENA_*``), validated once per cold start.

Required settings have no default, so a bad deploy fails when the function starts, not halfway
through a decision run. The OpenRouter key is never a setting: only the name of the SSM
parameter (a SecureString) that holds it is.
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from arena_core.constants import ObjectLockMode
from arena_core.domain.panel import Methodology
from arena_core.domain.panel_design import MAX_PANEL_SIZE, PANEL_SIZE
from arena_core.site.build import parse_simulation


class ArenaSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ARENA_", extra="ignore", frozen=True)

    table_name: str
    audit_bucket: str
    site_bucket: str | None = None
    # The alarm topic (SNS): Finalize names there the agents of a run that ended without a
    # decision. None (local runs, tests): no alert is sent.
    alert_topic_arn: str | None = None
    openrouter_parameter_name: str | None = None
    openrouter_base_url: str = "https://openrouter.ai/api/v1"
    # Send every model family to this one model (a local OpenAI-compatible server, say).
    llm_model_override: str | None = None
    gamma_url: str = "https://gamma-api.polymarket.com"
    clob_url: str = "https://clob.polymarket.com"
    universe_size: int = Field(default=500, ge=1, le=2000)
    decision_horizon: int = Field(default=5, ge=0)
    format_retries: int = Field(default=2, ge=0, le=5)
    max_attempts: int = Field(default=3, ge=1)
    lease_minutes: int = Field(default=15, ge=1)
    # The completion budget of a decision: by default the answer, the panel's forecasts and a
    # reasoning model's thinking (protocol/budget.py: 23,500 tokens at K = 300); a number here
    # replaces it for every decision.
    llm_max_tokens: int | None = Field(default=None, ge=256)
    # Dollars the models may cost in one run week (every cohort's agents together); once spent,
    # an agent is not asked and its decision fails, not retried. None: no budget.
    llm_weekly_budget: Decimal | None = Field(default=None, ge=0)
    llm_timeout_seconds: float = Field(default=240.0, gt=0)
    # Agents the weekly run decides at once when its input names no max_concurrency (0: all).
    # A new account may start with 10 concurrent Lambda executions, and the snapshot and
    # resolve functions run beside the run: beyond the quota Decide is throttled, retried three
    # times and recorded as failed. 5 leaves room for them; raise it once the quota is raised.
    run_concurrency: int = Field(default=5, ge=0, le=10_000)
    include_llms: bool = True
    include_baselines: bool = True
    baseline_seed: int = 0
    # Windows counted from Sunday 00:00 UTC: each snapshot tick regenerates the leaderboard
    # (every leaderboard_refresh_minutes: 10, every tick, as deployed), the first tick of a
    # window of site_refresh_minutes also the live cohorts' figures (one small JSON each), of
    # each hour everything site-wide, of each day the live cohorts' pages (see
    # services/publish_site.py). The demo widens both windows to keep a simulated week quick.
    site_refresh_minutes: int = Field(default=30, ge=10, le=10080)
    leaderboard_refresh_minutes: int = Field(default=10, ge=10, le=10080)
    # The leaderboard ranks a family once it has this many scored forecasts over this many
    # cohorts; below that it is listed as provisional, without rank.
    min_forecasts: int = Field(default=30, ge=1)
    min_cohorts: int = Field(default=2, ge=1)
    # The protocol new cohorts freeze when they open: v1 (the seeds'), or v1+panel (v1 plus
    # stated probabilities on a forecast panel of panel_size markets, drawn by the design of
    # domain/panel_design.py). Cohorts already open keep theirs. `arena cost` prints the LLM
    # spend at this K, `arena preview` a prompt's size and price.
    methodology: Methodology = Methodology.V1
    panel_size: int = Field(default=PANEL_SIZE, ge=1, le=MAX_PANEL_SIZE)
    # Raw 10-minute snapshots expire (DynamoDB TTL) this many days after they were taken; 0
    # keeps them forever. Hourly snapshots and family series are always kept: the site reads
    # raw snapshots for the last day only.
    snapshot_ttl_days: int = Field(default=30, ge=0)
    # S3 Object Lock retention of the commitments (site bucket) and the audit records (audit
    # bucket), set on each object written: a mode and a number of days (0: not retained).
    object_lock_mode: ObjectLockMode | None = None
    object_lock_days: int = Field(default=0, ge=0, le=36500)
    # What the site must say is simulated (the local demo: "clock,prices,replayed-markets");
    # empty in a deployment. Stand-ins are read from the lineups themselves.
    simulation: str = ""
    # Where the about page tells readers to report a wrong figure: an e-mail address or an
    # https address (checked in site.build). Empty: the page says this copy names none.
    site_contact: str = Field(default="", max_length=200)

    @field_validator("simulation")
    @classmethod
    def _known_parts(cls, value: str) -> str:
        parse_simulation(value)
        return value
