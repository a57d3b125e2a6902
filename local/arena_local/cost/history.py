"""A year of completed cohorts, written straight into a deployment's stores for the cost meter.

Simulating 52 weeks pass by pass would take hours; what a year of history changes in the
steady state's bill is what the publications and passes read and compute because of it: every
family's bet scores (the leaderboard's statistics, the carried inputs), each completed cohort's
final snapshots (read by every pass for the family series, sealed by the site), and a year of
hourly, daily and weekly series points (the charts). The first site-wide publication of the
warm-up seals those cohorts (reads each once and draws its pages: the manifest then lists them,
as a year's would), before anything is metered. This writes exactly those, through the stores'
own methods (scores with their family aggregates, finals as a completion writes
them), seeded and shaped like the live cohorts: the same families, each scored on
``scores_per_agent`` bets. Nothing else of the history (decisions, trades, audit records) is
read by a steady-state tick, so nothing else is written: the storage of a year is modelled from
the metered week's growth instead (``totals.py``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal

from arena_core.domain.cohort import Cohort
from arena_core.domain.lineup import AgentSpec
from arena_core.domain.portfolio import BetScore, PortfolioSnapshot, SeriesPoint, family_totals
from arena_core.ports.stores import Stores

WEEK = timedelta(weeks=1)
LIFE = timedelta(weeks=5)  # a cohort's decisions span the decision horizon


def seed_history(
    stores: Stores,
    lineup: Sequence[AgentSpec],
    *,
    first_live: datetime,
    weeks: int,
    scores_per_agent: int,
    seed: int = 7,
) -> int:
    """Write ``weeks`` completed cohorts opened the weeks before ``first_live - LIFE``; return
    how many scores were written."""
    rng = random.Random(seed)
    written = 0
    for back in range(weeks, 0, -1):
        opened = first_live - LIFE - back * WEEK
        cohort = Cohort.open(opened, tuple(lineup))
        stores.cohorts.create_cohort(cohort, cohort.agents())
        stores.cohorts.mark_first_decision(cohort.cohort_id, opened + timedelta(minutes=5))
        finals = []
        for agent in cohort.agents():
            scores = [
                _score(rng, agent.agent_id, cohort, agent.family_id, i)
                for i in range(scores_per_agent)
            ]
            stores.ledger.apply_scores(agent.agent_id, scores, family_id=agent.family_id)
            written += len(scores)
            finals.append(_final(rng, agent.agent_id, cohort, agent.family_id, len(scores)))
        stores.views.put_snapshots(finals)
        stores.views.put_hourly(finals)
        stores.views.put_finals(finals)
        stores.views.put_final_totals(family_totals(cohort.cohort_id, finals))
        stores.cohorts.complete_cohort(cohort.cohort_id, opened + LIFE)
    _series(
        stores, [s.family_id for s in lineup], first_live - LIFE - weeks * WEEK, first_live, rng
    )
    return written


def _score(rng: random.Random, agent_id: str, cohort: Cohort, family_id: str, i: int) -> BetScore:
    forecast = Decimal(rng.randint(5, 95)) / 100
    price = Decimal(rng.randint(5, 95)) / 100
    won = rng.random() < float(price)
    outcome = Decimal(1 if won else 0)
    at = cohort.week_start + timedelta(days=rng.randint(0, 34), minutes=5)
    return BetScore(
        trade_id=f"{agent_id}.h{i:04d}",
        agent_id=agent_id,
        cohort_id=cohort.cohort_id,
        family_id=family_id,
        market_id=f"history-{cohort.cohort_id}-{rng.randint(0, 400)}",
        side="YES",
        amount=Decimal(rng.randint(50, 2500)),
        cash_before=Decimal(10000),
        forecast=forecast,
        market_price=price,
        won=won,
        brier=(forecast - outcome) ** 2,
        market_brier=(price - outcome) ** 2,
        log_score=Decimal("-0.5"),
        scored_at=at + timedelta(days=3),
        bet_at=at,
        category="history",
        closes_at=at + timedelta(days=10),
    )


def _final(
    rng: random.Random, agent_id: str, cohort: Cohort, family_id: str, resolved: int
) -> PortfolioSnapshot:
    total = Decimal(rng.randint(7000, 13000))
    return PortfolioSnapshot(
        agent_id=agent_id,
        cohort_id=cohort.cohort_id,
        family_id=family_id,
        taken_at=cohort.week_start + LIFE,
        cash=total,
        positions_value=Decimal(0),
        total_value=total,
        total_pnl=total - 10000,
        total_pnl_pct=(total - 10000) / 100,
        brier=Decimal("0.2400"),
        resolved_bets=resolved,
        open_positions=0,
        trades=resolved,
    )


def _series(
    stores: Stores, families: list[str], start: datetime, end: datetime, rng: random.Random
) -> None:
    """Weekly points for the year, daily ones for the year, hourly ones for its last month:
    what the family charts read beyond the last day (raw points come from the live passes)."""
    points = []
    for family in families:
        for resolution, step, since in (
            ("week", WEEK, start),
            ("day", timedelta(days=1), start),
            ("hour", timedelta(hours=1), end - timedelta(days=31)),
        ):
            moment = since
            while moment < end - step:
                value = Decimal(rng.randint(-3000, 3000))
                points.append(
                    SeriesPoint(
                        family_id=family,
                        resolution=resolution,
                        bucket=moment,
                        taken_at=moment + step - timedelta(minutes=10),
                        pnl=value,
                        return_pct=value / 500,
                        agents=5,
                    )
                )
                moment += step
    stores.views.put_series(points)
