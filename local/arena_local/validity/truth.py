"""The truth the realistic world's seasons are scored against: every figure's mean over many
long seasons of the same world and panel plan.

A family's Brier score, peer score and skill against the market are means over questions, and
a season's questions share weekly outcome shocks (market-wide and per category), so a single
long season knows its truth only to within a few weeks' shocks. Measured on the deployed panel
(K=300): the Brier truth of one 60-week season, split into its two lineups of 30 weeks each,
moved by a standard deviation of 0.0025-0.0041 from seed to seed, as much as a 13-week reading
moves from season to season (0.0034-0.0048). Intervals that were right then "missed" a truth
that was wrong by that much: family Brier 90.6% at week 13. So the truth pools ``repeats``
independent seasons (sums, not means of means) until its own error is small beside the
intervals it judges.

A family's peer score is relative to the models present, so the truth is kept for the lineup
before the late families join and for the full lineup, and a season's truth is their mix in
the proportions of its own questions. Families of one specification share one truth.
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from arena_core.analysis.board import MARKET
from arena_core.analysis.rows import Forecast
from arena_local.validity.fitted import Fitted
from arena_local.validity.realistic import LLM, PanelPlan, WorldAssumptions, simulate

# Seeds of the truth's seasons: far from those of the seasons scored (seed * 1_000_003 + index
# with fewer than 500,000 seasons per part).
_TRUTH_SEEDS = 500_000


@dataclass(frozen=True)
class Lineups:
    """A truth for each lineup: before the late families join, and with everyone."""

    before: dict[tuple[str, str], float]
    after: dict[tuple[str, str], float]
    join: int  # the first week a late family forecasts (0: nobody joins late)


# Per family: Brier, the market's Brier on the same forecasts, peer score (sums) and forecasts.
Sums = dict[str, tuple[float, float, float, int]]


@dataclass(frozen=True)
class TruthPart:
    """One truth season's sums per lineup (``before`` empty when nobody joins late)."""

    before: Sums
    after: Sums
    join: int


def groups(world: WorldAssumptions) -> list[list[str]]:
    """Families of one specification (equal in truth)."""
    shared: dict[tuple[object, ...], list[str]] = defaultdict(list)
    for f in world.forecasters:
        shared[f.spec].append(f.family_id)
    return list(shared.values())


def _sums(rows: Sequence[Forecast]) -> Sums:
    found: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for row in rows:
        mine = found[row.family_id]
        mine[0] += row.brier
        mine[1] += row.market_brier
        mine[2] += row.peer or 0.0
        mine[3] += 1
    return {f: (b, m, p, int(n)) for f, (b, m, p, n) in found.items()}


def _added(parts: Iterable[Sums], world: WorldAssumptions) -> dict[tuple[str, str], float]:
    """The truths of pooled sums: families of one specification pooled too."""
    total: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for part in parts:
        for family, values in part.items():
            total[family] = [a + b for a, b in zip(total[family], values, strict=True)]
    pooled = dict(total)
    for group in groups(world):
        present = [total[f] for f in group if f in total]
        summed = [math.fsum(column) for column in zip(*present, strict=True)]
        for f in group:
            if f in total:
                pooled[f] = summed
    found: dict[tuple[str, str], float] = {}
    for family, (brier, market, peer, n) in pooled.items():
        found["brier", family] = brier / n
        found["skill", family] = 1.0 - brier / market
        found["peer", family] = peer / n
    return found


def _with_market(rows: Sequence[Forecast], models: set[str]) -> list[Forecast]:
    """The rows and the market's own (its price, peer-scored against the models)."""
    questions: dict[tuple[str, str], list[Forecast]] = defaultdict(list)
    for row in rows:
        questions[row.question].append(row)
    found = list(rows)
    for group in questions.values():
        first = group[0]
        given = [r.p_yes if r.outcome else 1 - r.p_yes for r in group if r.family_id in models]
        price = first.market_p_yes if first.outcome else 1 - first.market_p_yes
        logs = [math.log(g) for g in given]
        peer = 100.0 * (math.log(price) - math.fsum(logs) / len(logs)) if logs else 0.0
        found.append(replace(first, family_id=MARKET, p_yes=first.market_p_yes, peer=peer))
    return found


def truth_part(  # noqa: PLR0917 - a plan's world, seed and size, and which season
    world: WorldAssumptions, plan: PanelPlan, fitted: Fitted, seed: int, weeks: int, index: int
) -> TruthPart:
    """One truth season of ``weeks`` runs in which the late families join half way, read once
    everything has resolved; each half gives one lineup's sums."""
    late = {f.family_id for f in world.forecasters if f.joins > 0}
    half = weeks // 2
    staged = replace(
        world,
        forecasters=tuple(replace(f, joins=half) if f.joins else f for f in world.forecasters),
    )
    season = simulate(staged, plan, fitted, weeks, seed * 1_000_003 + _TRUTH_SEEDS + index)
    rows = season.read(math.inf, first_asks=plan.first_asks)
    models = {f.family_id for f in world.forecasters if f.kind == LLM}
    if not late:
        return TruthPart({}, _sums(_with_market(rows, models)), 0)
    early = [r for r in rows if int(r.week[1:]) < half]
    later = [r for r in rows if int(r.week[1:]) >= half]
    return TruthPart(
        _sums(_with_market(early, models - late)),
        _sums(_with_market(later, models)),
        min(f.joins for f in world.forecasters if f.joins > 0),
    )


def truth_from(parts: Sequence[TruthPart], world: WorldAssumptions) -> Lineups:
    """The truth of pooled truth seasons."""
    after = _added((p.after for p in parts), world)
    join = parts[0].join if parts else 0
    before = _added((p.before for p in parts), world) if join else after
    return Lineups(before, after, join)


def truth_of(  # noqa: PLR0917 - a plan's world, seed and size
    world: WorldAssumptions,
    plan: PanelPlan,
    fitted: Fitted,
    seed: int,
    weeks: int,
    repeats: int = 1,
) -> Lineups:
    """The truths of a plan over ``repeats`` independent seasons of ``weeks`` runs."""
    parts = [truth_part(world, plan, fitted, seed, weeks, i) for i in range(repeats)]
    return truth_from(parts, world)


def mixed(truth: Lineups, kind: str, family: str, weeks: Sequence[int]) -> float | None:
    """A figure's truth over forecasts in ``weeks`` (run weeks, one per forecast, sorted)."""
    after = truth.after.get((kind, family))
    if after is None:
        return None
    early = bisect.bisect_left(weeks, truth.join)
    before = truth.before.get((kind, family), after)
    return (early * before + (len(weeks) - early) * after) / len(weeks) if weeks else after
