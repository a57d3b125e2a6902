"""The primary comparisons: each model against the market (Holm at half of alpha) and Hsu's
multiple comparisons with the best (the other half), recomputed here from their definitions."""

from __future__ import annotations

import math

import pytest

from arena_core.analysis.figures import BRIER, PEER, Figure, Rules
from arena_core.analysis.pairs import PairResult, Verdict
from arena_core.analysis.primary import MARKET, BestVerdict, primary_comparisons
from arena_core.analysis.tdist import critical_value, two_sided_p

RULES = Rules()
DF = 20.0


def pair(a: str, b: str, estimate: float, se: float, measure: str = "peer_score") -> PairResult:
    """A tested pair A - B (its interval and Holm fields as the secondary table left them)."""
    shown = Figure(estimate, estimate - 1.0, estimate + 1.0, se, DF, 500, 21, 300, None)
    p = two_sided_p(estimate / se, DF)
    return PairResult(
        a, b, measure, measure == "brier", shown, p, p, None, None, Verdict.UNDECIDED, 0.05
    )


def test_each_model_against_the_market_is_holm_at_half_of_alpha_and_oriented() -> None:
    t_half = critical_value(DF, RULES.alpha / 2)  # one comparison at 0.025
    t_full = critical_value(DF, RULES.alpha)
    between = (t_half + t_full) / 2  # called at 0.05, not at 0.025
    pairs = [
        pair("x", MARKET, between * 0.1, 0.1),
        pair(MARKET, "y", -(t_half + 1.0) * 0.1, 0.1),  # stored market - y: y is better
    ]
    found = primary_comparisons(pairs, ["x"], PEER, RULES)
    (x,) = found.versus_market
    assert (x.family_a, x.family_b, x.verdict) == ("x", MARKET, Verdict.UNDECIDED)
    found = primary_comparisons(pairs, ["x", "y"], PEER, RULES)
    x, y = found.versus_market
    assert (y.family_a, y.family_b, y.verdict) == ("y", MARKET, Verdict.A_BETTER)
    assert y.difference is not None and y.difference.estimate == pytest.approx((t_half + 1) * 0.1)
    assert y.p_holm == pytest.approx(min(1.0, 2 * y.p_value))  # type: ignore[operator]
    assert y.level == pytest.approx(RULES.alpha / 2 / 2)  # its Holm step, within half alpha
    assert x.verdict is Verdict.UNDECIDED


def test_multiple_comparisons_with_the_best_follow_hsu() -> None:
    """Peer score (higher is better): theta_i = i minus the best of the others, bounded by
    min_j (d_ij -+ q s_ij), q the one-sided t quantile at alpha / 2 / (k - 1)."""
    se = 0.5
    estimates = {("a", "b"): 3.0, ("a", "c"): 6.0, ("b", "c"): 0.2}
    pairs = [pair(a, b, d, se) for (a, b), d in estimates.items()]
    found = primary_comparisons(pairs, ["a", "b", "c"], PEER, RULES)
    q = critical_value(DF, 2 * (RULES.alpha / 2) / 2) * se
    by_family = {b.family_id: b for b in found.best}

    def d(i: str, j: str) -> float:
        return estimates[i, j] if (i, j) in estimates else -estimates[j, i]

    for family in "abc":
        others = [o for o in "abc" if o != family]
        upper = min(d(family, o) + q for o in others)
        lower = min(d(family, o) - q for o in others)
        best = by_family[family]
        assert best.high == pytest.approx(max(0.0, upper))
        assert best.low == pytest.approx(min(0.0, lower))
    assert by_family["a"].verdict is BestVerdict.BEST  # 3 - q > 0 against both others
    assert by_family["b"].verdict is BestVerdict.NOT_BEST
    assert by_family["c"].verdict is BestVerdict.NOT_BEST


def test_on_brier_lower_is_better_and_close_families_could_both_be_best() -> None:
    pairs = [pair("a", "b", -0.001, 0.01, "brier"), pair("a", "c", -0.2, 0.01, "brier")]
    pairs.append(pair("b", "c", -0.199, 0.01, "brier"))
    found = primary_comparisons(pairs, ["a", "b", "c"], BRIER, RULES)
    verdicts = {b.family_id: b.verdict for b in found.best}
    assert verdicts == {
        "a": BestVerdict.CANDIDATE,
        "b": BestVerdict.CANDIDATE,
        "c": BestVerdict.NOT_BEST,
    }


def test_a_family_missing_a_comparison_is_too_few() -> None:
    pairs = [pair("a", "b", 3.0, 0.5)]
    found = primary_comparisons(pairs, ["a", "b", "c"], PEER, RULES)
    assert {b.verdict for b in found.best} == {BestVerdict.TOO_FEW}
    assert all(b.low is None and b.high is None for b in found.best)
    assert math.isclose(found.market_alpha + found.best_alpha, RULES.alpha)
