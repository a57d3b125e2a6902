"""The pairwise page's views: every two families on each measure, as a matrix and as a list.

A matrix cell reads "row minus column", so a row is read across: on Brier a negative cell means
the row family forecast better on the markets both forecast; on return a positive one means it
earned more in the weeks both ran. A verdict needs the Holm-adjusted p-value below 0.05.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena_core.site.statistics import Pair

ALPHA = 0.05
MEASURES: dict[str, tuple[str, str, str]] = {
    # measure: (title, the shared unit, in plural; the better direction)
    "brier": ("Mean Brier, on markets both forecast in the same week", "shared forecasts", "lower"),
    "return_pct": ("Mean return %, on weeks both ran", "shared weeks", "higher"),
}


@dataclass(frozen=True)
class Cell:
    """Row family minus column family; ``None`` estimate when they share nothing."""

    estimate: float | None
    low: float | None
    high: float | None
    p_holm: float | None
    units: int

    @property
    def separated(self) -> bool:
        return self.p_holm is not None and self.p_holm < ALPHA


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
    pair: Pair
    verdict: str
    more_needed: str


def _cell(pair: Pair | None, flipped: bool) -> Cell:
    if pair is None or pair.result is None:
        return Cell(None, None, None, None, 0)
    d = pair.result.difference
    sign = -1.0 if flipped else 1.0
    low, high = sorted((sign * d.low, sign * d.high))
    return Cell(sign * d.estimate + 0.0, low, high, pair.result.p_holm, pair.result.units)


def matrices(pairs: Sequence[Pair], names: Mapping[str, str]) -> list[Matrix]:
    """One matrix per measure over the families in ``names`` (their order is kept)."""
    found = []
    order = tuple(names.items())
    for measure, (title, _, _) in MEASURES.items():
        by_key = {(p.family_a, p.family_b): p for p in pairs if p.measure == measure}
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


def verdict(pair: Pair, names: Mapping[str, str]) -> str:
    """The pair's verdict in words: who is better, or "indistinguishable so far"."""
    result = pair.result
    if result is None:
        return "nothing shared yet"
    if result.p_holm is None or result.p_holm >= ALPHA:
        return "indistinguishable so far"
    lower = result.difference.estimate < 0
    a, b = names.get(pair.family_a, pair.family_a), names.get(pair.family_b, pair.family_b)
    better_is_lower = MEASURES[pair.measure][2] == "lower"
    winner = a if lower == better_is_lower else b
    return f"{winner} better"


def more_needed(pair: Pair) -> str:
    """How far the pair is from a verdict, in shared units."""
    result = pair.result
    if result is None:
        return "—"
    unit = MEASURES[pair.measure][1]
    if result.more_needed is None:
        return "no difference observed"
    if result.more_needed == 0:
        return "none: its interval already excludes 0"
    return f"about {math.ceil(result.more_needed):,} more {unit}"


def lines(pairs: Sequence[Pair], names: Mapping[str, str]) -> list[PairLine]:
    return [
        PairLine(
            names.get(p.family_a, p.family_a),
            names.get(p.family_b, p.family_b),
            p.measure,
            p,
            verdict(p, names),
            more_needed(p),
        )
        for p in pairs
    ]
