"""The pairwise page's views: the primary comparisons (each model against the market, and which
could be the best), then every two forecasters on each measure (the secondary table, with its
own correction), as a matrix and as a list.

A matrix cell reads "row minus column", so a row is read across: on Brier a negative cell means
the row forecast better on the questions both answered; on peer score or return a positive one
means the row did better. A verdict needs the Holm-adjusted p-value below 0.05; below the
validity minimum a pair has no interval and no verdict and says what it lacks; an undecided pair
says by how many more weeks it would be called if its difference held at its lower bound, or
that no difference is established yet at the verdicts' level, one-sided (then no week is
promised: an equal pair is promised no more often than it is wrongly called).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena_core.analysis.figures import BRIER, PEER
from arena_core.analysis.pairs import PairResult, Verdict
from arena_core.analysis.primary import BestVerdict, Primary

# The widest |A - B| each measure allows: its range's width (a Brier lies in [0, 1]).
WIDEST = {m.name: m.bounds[1] - m.bounds[0] for m in (BRIER, PEER)}
MEASURES: dict[str, tuple[str, str]] = {
    # measure: (title, the better direction)
    "peer_score": ("Mean peer score, on panel questions both answered", "higher"),
    "brier": ("Mean Brier, on questions both answered (a market in a run week)", "lower"),
    "return_pct": ("Mean return %, on matured cohorts both ran", "higher"),
}


@dataclass(frozen=True)
class Cell:
    """Row family minus column family; ``None`` estimate when they share nothing."""

    estimate: float | None
    low: float | None
    high: float | None
    p_holm: float | None
    units: int
    separated: bool
    needs: str | None  # below the minimum sample: what the pair lacks


@dataclass(frozen=True)
class Matrix:
    measure: str
    title: str
    names: tuple[tuple[str, str], ...]  # (family id, display name), in leaderboard order
    cells: tuple[tuple[Cell | None, ...], ...]  # None on the diagonal


@dataclass(frozen=True)
class PairLine:
    """One pair on one measure, in words."""

    a: str
    b: str
    measure: str
    pair: PairResult
    verdict: str
    more_needed: str
    detectable: str = "—"


def _cell(pair: PairResult | None, flipped: bool) -> Cell:
    difference = pair.difference if pair else None
    if pair is None or difference is None:
        return Cell(None, None, None, None, 0, False, None)
    sign = -1.0 if flipped else 1.0
    low = high = None
    if difference.low is not None and difference.high is not None:
        low, high = sorted((sign * difference.low, sign * difference.high))
    return Cell(
        sign * difference.estimate + 0.0,
        low,
        high,
        pair.p_holm,
        difference.n,
        pair.decided,
        difference.missing,
    )


def matrices(pairs: Sequence[PairResult], names: Mapping[str, str]) -> list[Matrix]:
    """One matrix per measure present, over the forecasters in ``names`` that appear in its
    pairs (their order is kept)."""
    found = []
    for measure, (title, _) in MEASURES.items():
        by_key = {(p.family_a, p.family_b): p for p in pairs if p.measure == measure}
        if not by_key:
            continue
        present = {f for key in by_key for f in key}
        order = tuple((f, n) for f, n in names.items() if f in present)
        rows = []
        for row, _ in order:
            cells: list[Cell | None] = []
            for column, _ in order:
                if row == column:
                    cells.append(None)
                elif (row, column) in by_key:
                    cells.append(_cell(by_key[(row, column)], flipped=False))
                else:
                    cells.append(_cell(by_key.get((column, row)), flipped=True))
            rows.append(tuple(cells))
        found.append(Matrix(measure, title, order, tuple(rows)))
    return found


def verdict(pair: PairResult, names: Mapping[str, str]) -> str:
    """The pair's verdict in words."""
    if pair.verdict is Verdict.NOTHING_SHARED:
        return "nothing shared yet"
    if pair.verdict is Verdict.TOO_FEW:
        return "too few shared for a verdict"
    if pair.verdict is Verdict.UNDECIDED:
        return "undecided so far"
    winner = pair.better() or ""
    return f"{names.get(winner, winner)} better"


def detectable(pair: PairResult) -> str:
    """The smallest difference this sample would call, or that it exceeds any difference the
    measure allows (a t with one degree of freedom does that: a Brier pair over two weeks
    was seen to need 17.9, on a measure where no two forecasters differ by more than 1)."""
    if pair.detectable is None:
        return "—"
    widest = WIDEST.get(pair.measure, math.inf)
    if pair.detectable > widest:
        return f"beyond the measure's range (±{widest:g})"
    return f"{pair.detectable:.4f}"


def more_needed(pair: PairResult) -> str:
    """How far the pair is from a verdict, in weeks: what a pair below the minimum lacks, the
    weeks an undecided one needs if its difference held, a dash once decided."""
    if pair.verdict is Verdict.TOO_FEW and pair.difference is not None:
        return pair.difference.missing or "—"
    if pair.verdict is not Verdict.UNDECIDED:
        return "—"
    if pair.more_weeks is None:
        return "no difference established: no week promised"
    return f"about {pair.more_weeks:,} more week{'' if pair.more_weeks == 1 else 's'}"


def lines(pairs: Sequence[PairResult], names: Mapping[str, str]) -> list[PairLine]:
    return [
        PairLine(
            names.get(p.family_a, p.family_a),
            names.get(p.family_b, p.family_b),
            p.measure,
            p,
            verdict(p, names),
            more_needed(p),
            detectable(p),
        )
        for p in pairs
    ]


@dataclass(frozen=True)
class PrimaryLine:
    """One primary comparison in words (``analysis.primary``): a model against the market, or
    against the best of the other ranked models."""

    name: str
    against: str
    estimate: float | None
    low: float | None
    high: float | None
    verdict: str
    decided: bool


def primary_lines(primary: Primary | None, names: Mapping[str, str]) -> list[PrimaryLine]:
    """The primary comparisons of a board: against the market, then could it be the best."""
    if primary is None:
        return []
    found = []
    for pair in primary.versus_market:
        shown = pair.difference
        verdict = {
            Verdict.A_BETTER: "better than the market",
            Verdict.B_BETTER: "worse than the market",
        }.get(pair.verdict, verdict_words(pair))
        found.append(
            PrimaryLine(
                names.get(pair.family_a, pair.family_a),
                "the market",
                shown.estimate if shown else None,
                shown.low if shown else None,
                shown.high if shown else None,
                verdict,
                pair.decided,
            )
        )
    for best in primary.best:
        words = BEST_WORDS[best.verdict]
        decided = best.verdict in (BestVerdict.BEST, BestVerdict.NOT_BEST)
        found.append(
            PrimaryLine(
                names.get(best.family_id, best.family_id),
                "the best of the others",
                None,
                best.low,
                best.high,
                words,
                decided,
            )
        )
    return found


BEST_WORDS = {
    BestVerdict.BEST: "the best",
    BestVerdict.NOT_BEST: "not the best",
    BestVerdict.CANDIDATE: "could be the best",
    BestVerdict.TOO_FEW: "too few shared for a verdict",
}


def verdict_words(pair: PairResult) -> str:
    return verdict(pair, {})
