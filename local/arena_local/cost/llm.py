"""The LLM spend per week, as a range per model family, from what replies really cost.

Tokens per reply come from the ``usage`` fields of the recorded OpenRouter responses
(``../shared/fixtures/openrouter/extracted``): each family takes its provider's recorded
completions (reasoning tokens included), or every recording's mean when its provider has none.
The prompt is the one the decide path stored in the metered sample (v1), and under v1+panel the
same plus the panel of K markets, measured through the prompt builder itself; the reply under
v1+panel adds K forecasts. K, the reply cap and the format retries are read from the settings
(``ArenaSettings``), never fixed here.

The range: low, one reply of the recorded size; high, every reply at the cap
(``llm_max_tokens``) and every format retry taken (``format_retries``), the prompt sent again
each time with the replies before it (reasoning models reach the cap).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from arena_core.adapters.polymarket import parse_market
from arena_core.domain.market import MarketStatus
from arena_core.domain.panel import UNCATEGORIZED, Panel, PanelMarket
from arena_core.protocol.budget import completion_budget
from arena_core.protocol.prompt import build_prompt
from arena_core.settings import ArenaSettings
from arena_local.cost.meter import Usage
from arena_local.cost.steady import Measured
from arena_local.demo.markets import FIXTURES

RECORDED = FIXTURES / "openrouter" / "extracted"
DUMP = (
    FIXTURES
    / "polymarket"
    / "gamma"
    / "wom_gamma_markets_top_volume_closed300_open300_2026-02.json"
)
FORECAST_BYTES = 45  # one {"market_id": "...", "p_yes": 0.62} item of a reply


@dataclass(frozen=True)
class RecordedReply:
    model: str
    prompt_tokens: int
    completion_tokens: int

    @property
    def provider(self) -> str:
        return self.model.split("/", 1)[0]


@dataclass(frozen=True)
class Spend:
    """One model's dollars per week: the low and high ends."""

    model: str
    low: float
    high: float
    recorded: bool  # its provider has recorded replies (else every recording's mean)


def recorded_replies(folder: Path = RECORDED) -> list[RecordedReply]:
    """Every recorded chat completion with its usage."""
    found = []
    for path in sorted(folder.glob("*.response_200.json")):
        body = json.loads(path.read_text())
        usage = body.get("usage") or {}
        if "completion_tokens" in usage and body.get("model"):
            found.append(
                RecordedReply(
                    str(body["model"]),
                    int(usage.get("prompt_tokens", 0)),
                    int(usage["completion_tokens"]),
                )
            )
    return found


def settings() -> ArenaSettings:
    """The deployment's settings as configured (``ARENA_*``; defaults otherwise)."""
    return ArenaSettings(table_name="cost", audit_bucket="cost")


def panel_prompt_bytes(k: int) -> int:
    """Bytes a panel of ``k`` markets adds to the prompt, through the prompt builder, on the
    recorded 500-market universe. The panel's rows are the dump's markets (the dump is a sample:
    fewer than K qualify for a real panel at its date), one line per question, as
    ``bench/bench_prompt_size.py`` builds them."""
    raw = json.loads(DUMP.read_text())
    markets = [
        parse_market(m).model_copy(update={"status": MarketStatus.OPEN, "resolution": None})
        for m in raw[:500]
    ]
    week = datetime(2026, 2, 1, tzinfo=UTC)  # the dump's week: its end dates follow it
    run_at = week + timedelta(minutes=5)
    rows = tuple(
        PanelMarket(
            market_id=m.market_id, question=m.question, category=m.category or UNCATEGORIZED,
            end_date=run_at + timedelta(days=1 + i % 7), p_yes=Decimal("0.4321"),
            stratum="1 to 3 days" if i % 2 else "4 to 7 days",
        )
        for i, m in enumerate((markets * (1 + k // len(markets)))[:k])
    )  # fmt: skip
    panel = Panel(week_start=week, run_at=run_at, requested=k, eligible=k, markets=rows)
    sizes = []
    for chosen in (None, panel):
        prompt = build_prompt(
            now=run_at, cohort_id="c2026-02-01", week=1, cash=Decimal(10_000), positions=[],
            markets=markets, panel=chosen,
        )  # fmt: skip
        sizes.append(len(prompt.system.encode()) + len(prompt.user.encode()))
    return sizes[1] - sizes[0]


def weekly_spend(
    measured: Measured,
    prices: dict[str, Any],
    models: Sequence[str],
    *,
    panel_size: int | None = None,
    replies: Sequence[RecordedReply] | None = None,
) -> list[Spend]:
    """Dollars per week per model, low and high, each family deciding once a week in each
    live cohort; ``panel_size``: under v1+panel with that K (None: v1)."""
    configured = settings()
    recorded = list(recorded_replies() if replies is None else replies)
    overall = statistics.fmean(r.completion_tokens for r in recorded)
    decide = measured.usage.get("Decide", Usage())
    per_token = prices["assumptions"]["bytes_per_token"]
    prompt = decide.prompt_bytes / max(decide.prompts, 1) / per_token
    answer = 0.0
    if panel_size:
        prompt += panel_prompt_bytes(panel_size) / per_token
        answer = panel_size * FORECAST_BYTES / per_token
    # The cap is the setting when one is set, else the budget sized for the panel (K forecasts
    # and a reasoning model's thinking: protocol/budget.py).
    cap = configured.llm_max_tokens or completion_budget(panel_size or 0)
    replies_at_most = 1 + configured.format_retries
    high_in = sum(prompt + i * cap for i in range(replies_at_most))  # each retry resends
    cohorts = measured.steady.live_cohorts
    found = []
    for model in models:
        price_in, price_out = prices["llm"].get(model, (0.0, 0.0))
        own = [r.completion_tokens for r in recorded if r.provider == model.split("/", 1)[0]]
        typical = (statistics.fmean(own) if own else overall) + answer
        low = cohorts * (prompt * price_in + typical * price_out) / 1e6
        high = cohorts * (high_in * price_in + replies_at_most * cap * price_out) / 1e6
        found.append(Spend(model, low, high, bool(own)))
    return found
