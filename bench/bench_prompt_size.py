"""Prompt and reply size for a 500-market universe from ../shared/fixtures and 20 open positions,
under methodology v1 and under v1+panel at K = 30, 100 and 300 (the default), with the reply's
forecasts at each K and the completion budget they get.

The dump holds 300 open and 300 closed markets; all are shown as open so the universe has the
full 500 rows a weekly prompt carries. The panel's rows are the dump's markets too (the dump
is a sample: fewer than K qualify for a real panel at its date), one line per question.

Target: the whole prompt (system + user) at the default K at most 96 KB (24,000 tokens at four
bytes a token), and the reply's forecasts well within the completion budget. `make bench`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from arena_core.adapters.polymarket import parse_market
from arena_core.domain.market import Market, MarketStatus
from arena_core.domain.panel import Panel, PanelMarket
from arena_core.domain.panel_design import PANEL_SIZE
from arena_core.protocol.budget import BYTES_PER_TOKEN, TOKENS_PER_FORECAST, completion_budget
from arena_core.protocol.prompt import PositionLine, Prompt, build_prompt

DUMP = (
    Path(__file__).resolve().parents[2]
    / "shared/fixtures/polymarket/gamma/wom_gamma_markets_top_volume_closed300_open300_2026-02.json"
)
TARGET = 96 * 1024
REPLY_CHARS_PER_TOKEN = 3  # JSON with digits tokenizes tighter than prose: a cautious figure
WEEK = datetime(2026, 2, 1, tzinfo=UTC)
RUN_AT = WEEK + timedelta(minutes=5)


def main() -> None:
    raw = json.loads(DUMP.read_text())
    markets = [
        parse_market(m).model_copy(update={"status": MarketStatus.OPEN, "resolution": None})
        for m in raw[:500]
    ]
    positions = [
        PositionLine(
            position_id=f"p{index:011d}",
            market_id=markets[index].market_id,
            side="NO" if index % 2 else "YES",
            shares=Decimal("1234.567891"),
            avg_price=Decimal("0.4123"),
            price=Decimal("0.4567"),
            value=Decimal("563.83"),
            unrealized_pnl=Decimal("-12.34"),
            market_status=MarketStatus.OPEN,
        )
        for index in range(20)
    ]
    print(f"markets={len(markets)} positions={len(positions)}")
    report("v1", prompt(markets, positions, None), 0)
    for size in (30, 100, PANEL_SIZE):
        report(f"v1+panel K={size}", prompt(markets, positions, panel(markets, size)), size)


def panel(markets: list[Market], size: int) -> Panel:
    chosen = tuple(
        PanelMarket(
            market_id=m.market_id,
            question=m.question,
            category=m.category or "uncategorized",
            end_date=RUN_AT + timedelta(days=1 + i % 14),
            p_yes=Decimal("0.4321"),
            stratum="within 7 days",
        )
        for i, m in enumerate(markets[:size])
    )
    return Panel(week_start=WEEK, run_at=RUN_AT, requested=size, eligible=size, markets=chosen)


def prompt(markets: list[Any], positions: list[PositionLine], chosen: Panel | None) -> Prompt:
    return build_prompt(
        now=RUN_AT,
        cohort_id="c2026-02-01",
        week=1,
        cash=Decimal("7523.45"),
        positions=positions,
        markets=markets,
        panel=chosen,
    )


def reply(chosen: int) -> int:
    """Characters of a reply stating every forecast (``json.dumps``' spacing, as models write)."""
    forecasts = [{"market_id": str(1_300_000 + i), "p_yes": 0.62} for i in range(chosen)]
    body = {"action": "HOLD", "reasoning": "", "forecasts": forecasts}
    return len(json.dumps(body))


def report(name: str, shown: Prompt, size: int) -> None:
    system, user = len(shown.system.encode()), len(shown.user.encode())
    total = system + user
    chars = reply(size)
    tokens = chars / REPLY_CHARS_PER_TOKEN
    per = (chars - reply(0)) / REPLY_CHARS_PER_TOKEN / size if size else 0.0
    print(
        f"{name}: system_bytes={system} user_bytes={user} total_bytes={total} "
        f"prompt_tokens~{total // BYTES_PER_TOKEN} target_bytes={TARGET} "
        f"within_target={total <= TARGET} ratio={total / TARGET:.3f}; reply_chars={chars} "
        f"reply_tokens~{tokens:.0f} tokens_per_forecast~{per:.1f} "
        f"(budgeted {TOKENS_PER_FORECAST}) completion_budget={completion_budget(size)}"
    )


if __name__ == "__main__":
    main()
