"""Prompt size for a 500-market universe from ../shared/fixtures and 20 open positions.

Target: the whole prompt (system + user) at most 64 KB. Run with `make bench`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from arena_core.adapters.polymarket import parse_market
from arena_core.domain.market import MarketStatus
from arena_core.protocol.prompt import PositionLine, build_prompt

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
    prompt = build_prompt(
        now=datetime(2026, 3, 1, 0, 5, tzinfo=UTC),
        cohort_id="c2026-03-01",
        week=1,
        cash=Decimal("7523.45"),
        positions=positions,
        markets=markets,
    )
    system, user = len(prompt.system.encode()), len(prompt.user.encode())
    total = system + user
    print(f"markets={len(markets)} positions={len(positions)}")
    print(f"system_bytes={system} user_bytes={user} total_bytes={total}")
    print(f"target_bytes={TARGET} within_target={total <= TARGET} ratio={total / TARGET:.3f}")


if __name__ == "__main__":
    main()
