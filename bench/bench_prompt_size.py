"""Prompt size for a 500-market universe from ../shared/fixtures and 20 open positions, under
methodology v1 and under v1+panel (the same, plus a 30-market forecast panel drawn from it).

Target: the whole prompt (system + user) at most 64 KB. Run with `make bench`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from arena_core.adapters.polymarket import parse_market
from arena_core.domain.market import MarketStatus
from arena_core.domain.panel import Panel, select_panel
from arena_core.domain.panel_design import panel_design
from arena_core.protocol.prompt import PositionLine, Prompt, build_prompt

DUMP = (
    Path(__file__).resolve().parents[2]
    / "shared/fixtures/polymarket/gamma/wom_gamma_markets_top_volume_closed300_open300_2026-02.json"
)
TARGET = 64 * 1024


def main() -> None:
    raw = json.loads(DUMP.read_text())
    # The dump holds 300 open and 300 closed markets; all are shown as open so the universe
    # has the full 500 rows a weekly prompt carries.
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
    # The dump was recorded at the start of February 2026: its end dates fall after that week.
    week = datetime(2026, 2, 1, tzinfo=UTC)
    run_at = week + timedelta(minutes=5)
    panel = select_panel(markets, week_start=week, run_at=run_at, design=panel_design())
    print(f"markets={len(markets)} positions={len(positions)} panel={len(panel.markets)}")
    for name, chosen in (("v1", None), ("v1+panel", panel)):
        report(name, prompt(run_at, markets, positions, chosen))


def prompt(
    run_at: datetime, markets: list[Any], positions: list[PositionLine], panel: Panel | None
) -> Prompt:
    return build_prompt(
        now=run_at,
        cohort_id="c2026-02-01",
        week=1,
        cash=Decimal("7523.45"),
        positions=positions,
        markets=markets,
        panel=panel,
    )


def report(name: str, prompt: Prompt) -> None:
    system, user = len(prompt.system.encode()), len(prompt.user.encode())
    total = system + user
    print(
        f"{name}: system_bytes={system} user_bytes={user} total_bytes={total} "
        f"target_bytes={TARGET} within_target={total <= TARGET} ratio={total / TARGET:.3f}"
    )


if __name__ == "__main__":
    main()
