"""A leaderboard's statistics from its rows: what the site shows, ``arena analyze`` prints and
the validity benchmark checks, computed in one place.

Input: every resolved forecast of the board's forecasters (model families, baselines, under
v1+panel the ensemble) and each family's return per cohort. The market's own price joins as
one more forecaster (one forecast per question; under v1+panel peer-scored against the models).
Output, per forecaster: every figure over its *matured* forecasts, with an interval once the
validity minimum is met, beside the same figures over everything resolved so far (provisional);
its return over completed cohorts; calibration; and for ranked model families a rank, the
range the pairwise verdicts allow and the share of draws in which it comes first. Pairs: every
two of the models, the ensemble and the market on the ranked measure (with Holm), on Brier
beside it when the panel ranks on peer score, and on return.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from arena_core.analysis import clustered
from arena_core.analysis.clustered import Estimate
from arena_core.analysis.families import (
    Breakdown,
    FamilyResult,
    breakdowns,
    family_result,
    market_forecasts,
)
from arena_core.analysis.figures import BRIER, Figure, Measure, Rules
from arena_core.analysis.pairs import (
    PairResult,
    compare_forecasts,
    compare_returns,
    return_figure,
)
from arena_core.analysis.primary import Primary, primary_comparisons
from arena_core.analysis.ranks import first_shares, order_by_verdicts, rank_ranges
from arena_core.analysis.rows import CohortReturn, Forecast, PositionPnl
from arena_core.scoring.seeds import seed_for

MARKET = "market"


@dataclass
class Board:
    measure: Measure  # what the board ranks on
    rules: Rules
    families: dict[str, FamilyResult] = field(default_factory=dict)  # the market included
    pairs: list[PairResult] = field(default_factory=list)  # on the ranked measure
    brier_pairs: list[PairResult] = field(default_factory=list)  # beside a peer-score ranking
    return_pairs: list[PairResult] = field(default_factory=list)
    breakdowns: list[Breakdown] = field(default_factory=list)
    # The pre-registered claims on the ranked measure (the pairs are the secondary table).
    primary: Primary | None = None

    @property
    def compared(self) -> int:
        """Pairs tested on the ranked measure: the size of its Holm family."""
        return sum(p.p_value is not None for p in self.pairs)


def _row_order(row: Forecast) -> tuple[object, ...]:
    """Every field, so that no two different rows tie: an agent may bet twice on a market in a
    week, at the same confidence and another price (which one the market's own forecast takes
    must not depend on the order the rows came in)."""
    return (
        row.family_id, row.week, row.market_id, row.cohort_id, row.agent_id, row.p_yes,
        row.market_p_yes, row.outcome, row.matured, row.event_id, row.category, row.horizon,
        row.peer is not None, row.peer or 0.0, row.baseline is not None, row.baseline or 0.0,
        row.closes,
    )  # fmt: skip


def _position_order(row: PositionPnl) -> tuple[object, ...]:
    return (row.family_id, row.week, row.cohort_id, row.market_id, row.event_id, row.pnl_pct)


def _by_family(rows: Sequence[Forecast]) -> dict[str, list[Forecast]]:
    found: dict[str, list[Forecast]] = {}
    for row in rows:
        found.setdefault(row.family_id, []).append(row)
    return dict(sorted(found.items()))


def _ranked(
    results: dict[str, FamilyResult],
    matured: Mapping[str, Sequence[Forecast]],
    pairs: Sequence[PairResult],
    measure: Measure,
    rules: Rules,
) -> dict[str, FamilyResult]:
    """Rank the eligible families by the verdicts, then the ranked measure (then Brier), with
    ranges from the verdicts and the share of draws in which each is first."""

    def key(result: FamilyResult) -> tuple[float, float, str]:
        value = result.ranked(measure)
        brier = result.brier.estimate if result.brier else 0.0
        sign = 1.0 if measure.lower_is_better else -1.0
        return (sign * (value.estimate if value else 0.0), brier, result.family_id)

    by_figure = sorted((r for r in results.values() if r.eligible), key=key)
    order = order_by_verdicts([r.family_id for r in by_figure], pairs)
    eligible = [results[family] for family in order]
    ranges = rank_ranges(order, pairs)
    shares = _first_shares(order, matured, measure, rules)
    found = dict(results)
    for position, result in enumerate(eligible, 1):
        best, worst = ranges[result.family_id]
        found[result.family_id] = replace(
            result,
            rank=position,
            rank_range=(best, worst),
            tied_with_leader=position > 1 and best == 1,
            first_share=shares.get(result.family_id),
        )
    return found


def _first_shares(
    order: Sequence[str],
    matured: Mapping[str, Sequence[Forecast]],
    measure: Measure,
    rules: Rules,
) -> dict[str, float]:
    """Each ranked family's share of draws in which it is best, from the families' joint
    (clustered) sampling distribution on the ranked measure."""
    if not order:
        return {}
    centres = {}
    sums = {}
    df = math.inf
    for family in order:
        rows = matured[family]
        values = [measure.value(r) for r in rows]
        centre = math.fsum(values) / len(values)
        psi = [(v - centre) / len(values) for v in values]
        centres[family] = centre
        units = [r.unit for r in rows]
        sums[family] = clustered.totals(psi, units, rules.clustering)
        # The draws use the t its intervals use: the fewest degrees of freedom of the ranked.
        df = min(df, clustered.variance(psi, units, rules.clustering)[1])
    covariance = [
        [clustered.covariance(sums[a], sums[b], rules.clustering) for b in order] for a in order
    ]
    estimates = {family: centres[family] for family in order}
    seed = seed_for("first", measure.name, estimates, covariance)
    return first_shares(
        estimates, covariance, lower_is_better=measure.lower_is_better, seed=seed, df=df
    )


def analyze(
    forecasts: Sequence[Forecast],
    returns: Sequence[CohortReturn],
    positions: Sequence[PositionPnl],
    *,
    rankable: set[str],
    compared: set[str],
    measure: Measure,
    rules: Rules,
    peer_market: bool,
    groups: Mapping[str, Callable[[Forecast], str]] | None = None,
    calibrate: bool = True,
) -> Board:
    """The board's statistics. ``rankable``: the model families; ``compared``: who the pairs
    are between besides the market (the models, and the ensemble under v1+panel);
    ``peer_market``: peer-score the market against the models (v1+panel); ``calibrate``:
    whether to tabulate calibration (the validity benchmark, which does not check it, skips
    it). In two parts: what the forecasts alone decide, then the returns."""
    board = analyze_forecasts(
        forecasts,
        rankable=rankable,
        compared=compared,
        measure=measure,
        rules=rules,
        peer_market=peer_market,
        groups=groups,
        calibrate=calibrate,
    )
    return with_returns(
        board, returns, positions, rankable=rankable, compared=compared, calibrate=calibrate
    )


def _forecasters(
    forecasts: Sequence[Forecast], rankable: set[str], peer_market: bool
) -> dict[str, list[Forecast]]:
    """Every forecaster's rows, the market's own forecasts included."""
    # One canonical order, whatever order the rows came in (a store's, a CSV's): every sum is
    # then added up in the same order, so the site and ``arena analyze`` agree to the bit.
    forecasts = sorted(forecasts, key=_row_order)
    rows = [*forecasts, *market_forecasts(forecasts, rankable, with_peer=peer_market)]
    return _by_family(rows)


def _compared(
    matured: Mapping[str, Sequence[Forecast]], compared: set[str]
) -> dict[str, Sequence[Forecast]]:
    return {n: matured[n] for n in sorted(matured) if n in compared or n == MARKET}


def pairs_only(
    forecasts: Sequence[Forecast],
    *,
    rankable: set[str],
    compared: set[str],
    measure: Measure,
    rules: Rules,
    peer_market: bool,
) -> list[PairResult]:
    """The pairs ``analyze_forecasts`` finds on the ranked measure, and nothing else (the
    validity benchmark reads a season at every week to check the weeks it promises)."""
    by_family = _forecasters(forecasts, rankable, peer_market)
    matured = {name: [r for r in found if r.matured] for name, found in by_family.items()}
    return compare_forecasts(_compared(matured, compared), measure, rules)


def analyze_forecasts(
    forecasts: Sequence[Forecast],
    *,
    rankable: set[str],
    compared: set[str],
    measure: Measure,
    rules: Rules,
    peer_market: bool,
    groups: Mapping[str, Callable[[Forecast], str]] | None = None,
    calibrate: bool = True,
) -> Board:
    """Everything the forecasts decide: every figure but the returns (left empty), the pairs
    on the ranked measure and on Brier, the ranks, and the breakdowns. It changes only when a
    forecast is scored or matures (the site keeps it between publications: ``site/boards``)."""
    by_family = _forecasters(forecasts, rankable, peer_market)
    names = sorted(by_family)
    results = {
        name: family_result(
            name,
            by_family[name],
            [],
            [],
            rules=rules,
            measure=measure,
            rankable=name in rankable,
            calibrate=calibrate,
        )
        for name in names
    }
    matured = {name: [r for r in found if r.matured] for name, found in by_family.items()}
    shown = _compared(matured, compared)
    board = Board(measure=measure, rules=rules)
    board.pairs = compare_forecasts(shown, measure, rules)
    if measure is not BRIER:
        board.brier_pairs = compare_forecasts(shown, BRIER, rules)
    board.families = _ranked(results, matured, board.pairs, measure, rules)
    ranked = sorted(
        (r for r in board.families.values() if r.rank is not None), key=lambda r: r.rank or 0
    )
    board.primary = primary_comparisons(board.pairs, [r.family_id for r in ranked], measure, rules)
    if groups:
        board.breakdowns = [
            b for name in names for b in breakdowns(name, by_family[name], groups, rules)
        ]
    return board


@dataclass(frozen=True)
class ReturnStatistics:
    """What the matured cohorts' returns decide (``return_statistics``): each family's return
    figure and the pairs on return. A function of which cohorts of each family matured and of
    their positions alone: the site keeps it between publications (``site/boards.py``)."""

    figures: dict[str, Figure | None]
    pairs: list[PairResult]


def _returns_by_family(returns: Sequence[CohortReturn]) -> dict[str, list[CohortReturn]]:
    ordered = sorted(
        returns, key=lambda r: (r.family_id, r.week, r.cohort_id, r.return_pct, r.matured)
    )
    found: dict[str, list[CohortReturn]] = {}
    for entry in ordered:
        found.setdefault(entry.family_id, []).append(entry)
    return found


def return_names(board: Board, returns: Sequence[CohortReturn]) -> list[str]:
    """The families a board with returns has a figure for."""
    return sorted(set(board.families) | {r.family_id for r in returns})


def return_statistics(
    board: Board,
    returns: Sequence[CohortReturn],
    positions: Sequence[PositionPnl],
    *,
    compared: set[str],
) -> ReturnStatistics:
    """Each family's mean return over matured cohorts and the pairs on return."""
    rules = board.rules
    by_family_returns = _returns_by_family(returns)
    by_family_positions: dict[str, list[PositionPnl]] = {}
    for position in sorted(positions, key=_position_order):
        by_family_positions.setdefault(position.family_id, []).append(position)
    names = return_names(board, returns)
    figures = {
        name: return_figure(
            by_family_returns.get(name, []), by_family_positions.get(name, []), rules
        )
        for name in names
    }
    pairs = compare_returns(
        {n: by_family_returns[n] for n in names if n in by_family_returns and n in compared},
        by_family_positions,
        rules,
    )
    return ReturnStatistics(figures, pairs)


def with_returns(
    board: Board,
    returns: Sequence[CohortReturn],
    positions: Sequence[PositionPnl],
    *,
    rankable: set[str],
    compared: set[str],
    calibrate: bool = True,
    statistics: ReturnStatistics | None = None,
) -> Board:
    """A new board: ``board`` (``analyze_forecasts``'s, left as it is) with each family's
    return over completed cohorts, over every cohort (provisional), and the pairs on return.
    A family with returns and no forecast gets the figures of none. ``statistics``: the
    return statistics of these returns and positions, when known (then ``positions`` is not
    read)."""
    rules = board.rules
    if statistics is None:
        statistics = return_statistics(board, returns, positions, compared=compared)
    by_family_returns = _returns_by_family(returns)
    families = {}
    for name in return_names(board, returns):
        every = [r.return_pct for r in by_family_returns.get(name, [])]
        base = board.families.get(name) or family_result(
            name,
            [],
            [],
            [],
            rules=rules,
            measure=board.measure,
            rankable=name in rankable,
            calibrate=calibrate,
        )
        families[name] = replace(
            base,
            returns=statistics.figures[name],
            provisional_return=math.fsum(every) / len(every) if every else None,
            return_cohorts=len(every),
        )
    return replace(board, families=families, return_pairs=statistics.pairs)


def estimate_for(rows: Sequence[Forecast], measure: Measure, rules: Rules) -> Estimate | None:
    """The clustered estimate of a measure over rows (what each figure is made from)."""
    return clustered.mean(
        [measure.value(r) for r in rows], [r.unit for r in rows], rules.clustering
    )
