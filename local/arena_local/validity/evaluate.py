"""Run simulated seasons through the analysis and score it against the known truth.

The truth of every figure is its value over a very long season read once everything has
resolved (families with the same specification share one truth, their average, so equal
families are exactly equal). A season is then analysed exactly as ``arena analyze`` analyses a
dataset (``arena_core.analysis.board.analyze``) and compared with the truth: whether each
interval shown covers it, whether any verdict is false (equal families called different, or an
order reversed), whether each rank range contains the true ranks, how far the ranked figure and
the provisional one (everything resolved so far) sit from the truth, and which unequal pairs
are called the right way.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from arena_core.analysis.board import MARKET, Board, analyze
from arena_core.analysis.figures import BRIER, PEER, Figure, Measure, Rules
from arena_core.analysis.pairs import PairResult
from arena_local.validity.world import Design, FamilySpec, Season, WorldSpec, simulate

TRUTH_WEEKS = 1500
TRUTH_RULES = Rules(min_forecasts=0, min_cohorts=0, min_weeks=0, min_events=0, min_return_cohorts=0)
INTERVALS = ("brier", "skill", "return", "peer", "pair")


def measure_of(methodology: str) -> Measure:
    return PEER if methodology == "v1+panel" else BRIER


def board_of(season: Season, spec: WorldSpec, methodology: str, rules: Rules) -> Board:
    """The season's leaderboard statistics, as the site and ``arena analyze`` compute them."""
    models = {f.family_id for f in spec.families}
    return analyze(
        season.forecasts,
        season.returns,
        season.positions,
        rankable=models,
        compared=models,
        measure=measure_of(methodology),
        rules=rules,
        peer_market=methodology == "v1+panel",
        calibrate=False,
    )


def _figures(board: Board) -> dict[tuple[str, str], Figure | None]:
    found: dict[tuple[str, str], Figure | None] = {}
    for family, result in board.families.items():
        found["brier", family] = result.brier
        found["skill", family] = result.skill
        found["return", family] = result.returns
        found["peer", family] = result.peer
    return found


def _pairs(board: Board) -> dict[tuple[str, str, str], PairResult]:
    return {(p.measure, p.family_a, p.family_b): p for p in [*board.pairs, *board.brier_pairs]}


@dataclass(frozen=True)
class Truth:
    figures: dict[tuple[str, str], float]  # (interval type, family) -> true value
    pairs: dict[tuple[str, str, str], float]  # (measure, a, b) -> true A - B
    equal: frozenset[frozenset[str]]  # pairs of families with one specification


def _groups(families: Sequence[FamilySpec]) -> list[list[str]]:
    shared: dict[tuple[float, float, float, float], list[str]] = defaultdict(list)
    for f in families:
        shared[f.noise, f.bias, f.persistence, f.week_shift].append(f.family_id)
    return list(shared.values())


def _averaged(values: dict[str, float], groups: Iterable[list[str]]) -> dict[str, float]:
    found = dict(values)
    for group in groups:
        present = [values[f] for f in group if f in values]
        for f in group:
            if f in values:
                found[f] = math.fsum(present) / len(present)
    return found


def truth_of(spec: WorldSpec, methodology: str, seed: int, weeks: int = TRUTH_WEEKS) -> Truth:
    """Every figure over a very long season with everything resolved."""
    design = Design(methodology, weeks, panel_size=30, returns=True)
    season = simulate(spec, design, seed, until=math.inf)
    board = board_of(season, spec, methodology, TRUTH_RULES)
    groups = [*_groups(spec.families), [MARKET]]
    figures: dict[tuple[str, str], float] = {}
    for kind in ("brier", "skill", "return", "peer"):
        values = {
            family: figure.estimate
            for (k, family), figure in _figures(board).items()
            if k == kind and figure is not None
        }
        figures |= {(kind, f): v for f, v in _averaged(values, groups).items()}
    pairs = {}
    for (measure, a, b), pair in _pairs(board).items():
        mapped = {"brier": "brier", "peer_score": "peer"}[measure]
        if (mapped, a) in figures and (mapped, b) in figures and methodology == "v1+panel":
            # Every question is shared on the panel: the difference of the truths is exact.
            pairs[measure, a, b] = figures[mapped, a] - figures[mapped, b]
        elif pair.difference is not None:
            pairs[measure, a, b] = pair.difference.estimate
    equal = frozenset(frozenset((a, b)) for group in groups for a in group for b in group if a < b)
    for key in pairs:
        if frozenset(key[1:]) in equal:
            pairs[key] = 0.0
    return Truth(figures, pairs, equal)


@dataclass
class Tally:
    """What many seasons of one cell add up to."""

    seasons: int = 0
    shown: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    possible: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    covered: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    false_seasons: int = 0  # seasons with at least one false verdict
    ranks_shown: int = 0
    ranks_covered: int = 0
    rank_width: float = 0.0
    brier_bias: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    provisional_brier_bias: dict[str, list[float]] = field(
        default_factory=lambda: defaultdict(list)
    )
    called: dict[float, list[int]] = field(default_factory=lambda: defaultdict(list))
    return_samples: list[tuple[int, int]] = field(default_factory=list)  # (cohorts, covered)

    def coverage(self, kind: str) -> float | None:
        return self.covered[kind] / self.shown[kind] if self.shown[kind] else None

    def shown_share(self, kind: str) -> float | None:
        return self.shown[kind] / self.possible[kind] if self.possible[kind] else None


def _true_ranks(
    truth: Truth, ranked: Sequence[str], measure: Measure
) -> dict[str, tuple[int, int]]:
    kind = "peer" if measure is PEER else "brier"
    value = {f: truth.figures[kind, f] for f in ranked}
    sign = 1.0 if measure.lower_is_better else -1.0
    found = {}
    for f in ranked:
        better = sum(
            sign * value[g] < sign * value[f] for g in ranked if g != f and not _same(truth, f, g)
        )
        worse = sum(
            sign * value[g] > sign * value[f] for g in ranked if g != f and not _same(truth, f, g)
        )
        found[f] = (1 + better, len(ranked) - worse)
    return found


def _same(truth: Truth, a: str, b: str) -> bool:
    return frozenset((a, b)) in truth.equal


def score_season(tally: Tally, board: Board, truth: Truth, gaps: Sequence[float]) -> None:
    """Add one analysed season to the tally."""
    tally.seasons += 1
    for (kind, family), shown in _figures(board).items():
        if family == MARKET or (kind, family) not in truth.figures or shown is None:
            continue
        tally.possible[kind] += 1
        if shown.low is not None and shown.high is not None:
            covered = shown.low <= truth.figures[kind, family] <= shown.high
            tally.shown[kind] += 1
            tally.covered[kind] += covered
            if kind == "return":
                tally.return_samples.append((shown.n, int(covered)))
    false_verdict = False
    for key, pair in _pairs(board).items():
        if key not in truth.pairs or pair.difference is None:
            continue
        true = truth.pairs[key]
        tally.possible["pair"] += 1
        low, high = pair.difference.low, pair.difference.high
        if low is not None and high is not None:
            tally.shown["pair"] += 1
            tally.covered["pair"] += low <= true <= high
        if key[0] != board.measure.name:
            continue
        winner = pair.better()
        if winner is not None:
            sign = 1.0 if board.measure.lower_is_better else -1.0
            truly_better = key[1] if sign * true < 0 else key[2]
            if true == 0.0 or winner != truly_better:
                false_verdict = True
        _tally_power(tally, truth, key, winner, gaps)
    tally.false_seasons += false_verdict
    _tally_ranks(tally, board, truth)


def _tally_power(
    tally: Tally, truth: Truth, key: tuple[str, str, str], winner: str | None, gaps: Sequence[float]
) -> None:
    _, a, b = key
    if MARKET in (a, b) or ("brier", a) not in truth.figures:
        return
    gap = abs(truth.figures["brier", a] - truth.figures["brier", b])
    for target in gaps:
        if abs(gap - target) <= 0.25 * target:
            better = a if truth.figures["brier", a] < truth.figures["brier", b] else b
            tally.called[target].append(int(winner == better))


def _tally_ranks(tally: Tally, board: Board, truth: Truth) -> None:
    ranked = [f for f, r in board.families.items() if r.rank is not None]
    true_ranks = _true_ranks(truth, ranked, board.measure)
    for family, result in board.families.items():
        brier = truth.figures.get(("brier", family))
        if brier is not None and result.brier is not None and family != MARKET:
            tally.brier_bias[family].append(result.brier.estimate - brier)
            tally.provisional_brier_bias[family].append(result.provisional["brier"] - brier)
        if result.rank_range is None:
            continue
        best, worst = result.rank_range
        true_best, true_worst = true_ranks[family]
        tally.ranks_shown += 1
        tally.ranks_covered += best <= true_best and worst >= true_worst
        tally.rank_width += worst - best + 1


def run_cell(
    spec: WorldSpec,
    design: Design,
    truth: Truth,
    *,
    rules: Rules,
    seasons: int,
    seed: int,
    gaps: Sequence[float] = (0.01, 0.02, 0.05),
) -> Tally:
    tally = Tally()
    for index in range(seasons):
        season = simulate(spec, design, seed * 1_000_003 + index)
        score_season(tally, board_of(season, spec, design.methodology, rules), truth, gaps)
    return tally
