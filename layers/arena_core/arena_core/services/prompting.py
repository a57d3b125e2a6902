"""The prompt of one agent's decision, from the stores: the decide path builds it here, and
``arena preview`` prints what this returns for the same inputs (never a second builder)."""

from __future__ import annotations

from datetime import datetime

from arena_core.domain.cohort import Agent
from arena_core.domain.holdings import PositionLine, position_lines
from arena_core.domain.market import Market
from arena_core.domain.panel import Panel
from arena_core.domain.portfolio import Position
from arena_core.ports.market_store import MarketStore
from arena_core.protocol.prompt import Prompt, build_prompt


def decision_prompt(
    market_states: MarketStore,
    member: Agent,
    *,
    week: int,
    run_at: datetime,
    markets: list[Market],
    positions: list[Position],
    panel: Panel | None,
) -> tuple[Prompt, list[PositionLine]]:
    """The prompt an agent gets, and its positions as the prompt shows them: held markets
    missing from the run's universe are valued from their last stored state. The one prompt
    builder of the decide path (``arena preview`` prints what it returns)."""
    by_id = {m.market_id: m for m in markets}
    held = [p.market_id for p in positions if p.is_open and p.market_id not in by_id]
    known = {**market_states.get_markets(held), **by_id}
    lines = position_lines(positions, known)
    prompt = build_prompt(
        now=run_at,
        cohort_id=member.cohort_id,
        week=week,
        cash=member.cash,
        positions=lines,
        markets=markets,
        panel=panel,
    )
    return prompt, lines
