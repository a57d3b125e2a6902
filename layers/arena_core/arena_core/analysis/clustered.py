"""Cluster-robust standard errors: what keeps together what shares an outcome or a shock.

Every figure of the analysis is a mean (a Brier score, a peer score, a paired difference) or a
ratio of means (the Brier skill against the market) over observations that are not
independent: markets of one Polymarket event share an outcome, the same market is forecast in
several weeks, and forecasts of one run week share that week's news. Each observation
therefore carries a ``Unit``: its event and its run week.

The variance of an estimator is computed from its influence values (its linearisation: for a
mean, ``(x_i - mean) / n``) summed within clusters, with the usual small-sample factor
G / (G - 1) (CR1):

- ``WEEK``: clusters are run weeks (what the first statistics used);
- ``EVENT``: clusters are events, across weeks (a market always belongs to one event, so the
  same market in several weeks stays in one cluster);
- ``EVENT_WEEK``: two-way clustering (Cameron, Gelbach and Miller 2011):
  V = V_event + V_week - V_event-and-week, with V_event or V_week when that is not positive;
- ``EVENT_WEEK_CLOSE``: three-way, the week a market is scheduled to close as the third
  dimension: an outcome shock of one week touches every question resolving in it, whichever
  week asked it (V by inclusion and exclusion over the seven combinations of the three, or the
  largest one-way V when that is not positive).

Intervals and tests use Student's t with G - 1 degrees of freedom, G the number of clusters
(the smallest dimension under multiway clustering). Which scheme the leaderboard uses, and from
how many clusters on its intervals cover, is decided by the validity benchmark
(``bench/bench_statistics_validity.py``), not here.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from arena_core.analysis.tdist import critical_value


class Clustering(StrEnum):
    WEEK = "week"
    EVENT = "event"
    EVENT_WEEK = "event+week"
    EVENT_WEEK_CLOSE = "event+week+close"


class Unit(NamedTuple):
    """Where an observation sits: its Polymarket event, its run week and the week its market is
    scheduled to close (its run week when unknown)."""

    event: str
    week: str
    closes: str = ""


@dataclass(frozen=True, slots=True)
class Estimate:
    """A point estimate with its cluster-robust standard error and the sample behind it."""

    estimate: float
    se: float
    df: float  # degrees of freedom of its t distribution (clusters - 1)
    n: int  # observations
    weeks: int  # distinct run weeks
    events: int  # distinct events

    def half_width(self, alpha: float = 0.05) -> float:
        if self.se == 0.0:
            return 0.0
        return critical_value(self.df, alpha) * self.se if self.df > 0 else math.inf

    def t(self) -> float:
        """The estimate over its standard error (infinite when the error is 0)."""
        if self.se > 0.0:
            return self.estimate / self.se
        return 0.0 if self.estimate == 0.0 else math.copysign(math.inf, self.estimate)


Totals = tuple[dict[Hashable, float], ...]  # per dimension of a scheme: cluster -> sum


# Per scheme: which dimensions (event 0, run week 1, close week 2) form each cluster, and the
# sign of its variance; the one-way dimensions first, then their intersections (inclusion and
# exclusion).
_DIMENSIONS: dict[Clustering, tuple[tuple[tuple[int, ...], float], ...]] = {
    Clustering.WEEK: (((1,), 1.0),),
    Clustering.EVENT: (((0,), 1.0),),
    Clustering.EVENT_WEEK: (((0,), 1.0), ((1,), 1.0), ((0, 1), -1.0)),
    Clustering.EVENT_WEEK_CLOSE: (
        ((0,), 1.0),
        ((1,), 1.0),
        ((2,), 1.0),
        ((0, 1), -1.0),
        ((0, 2), -1.0),
        ((1, 2), -1.0),
        ((0, 1, 2), 1.0),
    ),
}
_CANCELLED = 1e-12  # a multiway variance this small beside its parts is rounding, not signal


def _keys(units: Sequence[Unit], scheme: Clustering) -> list[Sequence[Hashable]]:
    """The cluster of each unit along each dimension the scheme sums over."""
    dimensions = _DIMENSIONS[scheme]
    columns: list[Sequence[Hashable]] = [
        [u.event for u in units],
        [u.week for u in units],
        [u.closes or u.week for u in units] if len(dimensions) > 3 else [],
    ]
    return [
        columns[parts[0]]
        if len(parts) == 1
        else list(zip(*(columns[p] for p in parts), strict=True))
        for parts, _ in dimensions
    ]


def totals(psi: Sequence[float], units: Sequence[Unit], scheme: Clustering) -> Totals:
    """The influence values summed within each cluster, per dimension of the scheme."""
    found = []
    for keys in _keys(units, scheme):
        sums: dict[Hashable, float] = {}
        get = sums.get
        for value, key in zip(psi, keys, strict=True):
            sums[key] = get(key, 0.0) + value
        found.append(sums)
    return tuple(found)


def _cross(a: Totals, b: Totals, scheme: Clustering) -> tuple[float, float]:
    """Sum over dimensions (with their signs) of CR1-scaled, centred cross products of cluster
    sums, and the degrees of freedom: clusters - 1 (the smallest one-way dimension's under
    multiway). Centring changes nothing for a mean (its influence values sum to zero) and
    makes the variance of a total the spread of its cluster sums around their mean."""
    parts = []
    counts = []
    for sums_a, sums_b in zip(a, b, strict=True):
        count = len(sums_a.keys() | sums_b.keys()) if sums_a is not sums_b else len(sums_a)
        counts.append(count)
        if count < 2:
            parts.append(0.0)
            continue
        if sums_a is sums_b:  # a variance: each cluster's sum squared
            cross = math.fsum([v * v for v in sums_a.values()])
        else:
            small = sums_a if len(sums_a) <= len(sums_b) else sums_b
            large = sums_b if small is sums_a else sums_a
            cross = math.fsum([v * large[k] for k, v in small.items() if k in large])
        cross -= math.fsum(sums_a.values()) * math.fsum(sums_b.values()) / count
        parts.append(cross * count / (count - 1))
    dimensions = _DIMENSIONS[scheme]
    combined = math.fsum(sign * part for (_, sign), part in zip(dimensions, parts, strict=True))
    one_way = [i for i, (found, _) in enumerate(dimensions) if len(found) == 1]
    if len(one_way) > 1:
        # "Not positive" up to rounding: when events nest in weeks, V_event and V_intersection
        # are equal and cancel, and weeks with equal sums leave 1e-34 where 0.0 was meant (a
        # zero-width interval over varied scores, decided by the last bit).
        if combined <= _CANCELLED * max(map(abs, parts)) and a is b:
            combined = max(parts[i] for i in one_way)
        return combined, float(max(min(counts[i] for i in one_way) - 1, 0))
    return combined, float(max(counts[0] - 1, 0))


@dataclass(frozen=True, slots=True)
class Clusters:
    """Each observation's cluster along each dimension of a scheme, as an index, and how many
    clusters each dimension has: worked out once for a list of units and reused by every
    estimate over them (a family's measures, the pairs sharing the same questions)."""

    scheme: Clustering
    indices: tuple[list[int], ...]
    counts: tuple[int, ...]
    weeks: int
    events: int

    @classmethod
    def of(cls, units: Sequence[Unit], scheme: Clustering) -> Clusters:
        indices, counts = [], []
        for keys in _keys(units, scheme):
            numbers: dict[Hashable, int] = {}
            setdefault = numbers.setdefault
            indices.append([setdefault(key, len(numbers)) for key in keys])
            counts.append(len(numbers))
        return cls(
            scheme,
            tuple(indices),
            tuple(counts),
            weeks=len({u.week for u in units}),
            events=len({u.event for u in units}),
        )


def _clusters(units: Sequence[Unit] | Clusters, scheme: Clustering) -> Clusters:
    return units if isinstance(units, Clusters) else Clusters.of(units, scheme)


def variance(
    psi: Sequence[float], units: Sequence[Unit] | Clusters, scheme: Clustering
) -> tuple[float, float]:
    """The variance of an estimator with influence values ``psi`` and its degrees of freedom.

    One-way: CR1 over the scheme's clusters. Multiway: the one-way variances less their
    intersections' (inclusion and exclusion; the largest one-way variance when that is not
    positive), the smallest dimension's degrees of freedom. Zero degrees of freedom (one
    cluster) means no interval. The same figures as ``_cross`` of ``totals`` with itself, to
    the bit: each cluster's sum is added up in the observations' order."""
    clusters = _clusters(units, scheme)
    parts = []
    for index, count in zip(clusters.indices, clusters.counts, strict=True):
        if count < 2:
            parts.append(0.0)
            continue
        sums = [0.0] * count
        for value, cluster in zip(psi, index, strict=True):
            sums[cluster] += value
        cross = math.fsum([v * v for v in sums]) - math.fsum(sums) * math.fsum(sums) / count
        parts.append(cross * count / (count - 1))
    dimensions = _DIMENSIONS[scheme]
    combined = math.fsum(sign * part for (_, sign), part in zip(dimensions, parts, strict=True))
    one_way = [i for i, (found, _) in enumerate(dimensions) if len(found) == 1]
    if len(one_way) > 1:
        if combined <= _CANCELLED * max(map(abs, parts)):
            combined = max(parts[i] for i in one_way)
        return combined, float(max(min(clusters.counts[i] for i in one_way) - 1, 0))
    return combined, float(max(clusters.counts[0] - 1, 0))


def covariance(a: Totals, b: Totals, scheme: Clustering) -> float:
    """The clustered covariance of two estimators from their ``totals`` (e.g. two families'
    mean scores on the questions both answered, and on those only one did)."""
    return _cross(a, b, scheme)[0]


def estimate_of(
    estimate: float, psi: Sequence[float], units: Sequence[Unit] | Clusters, scheme: Clustering
) -> Estimate:
    clusters = _clusters(units, scheme)
    value, df = variance(psi, clusters, scheme)
    return Estimate(
        estimate=estimate,
        se=math.sqrt(max(value, 0.0)),
        df=df,
        n=len(psi),
        weeks=clusters.weeks,
        events=clusters.events,
    )


def mean(
    values: Sequence[float], units: Sequence[Unit] | Clusters, scheme: Clustering
) -> Estimate | None:
    """The mean of ``values`` with its clustered standard error (None when empty)."""
    n = len(values)
    if n == 0:
        return None
    centre = math.fsum(values) / n
    return estimate_of(centre, [(v - centre) / n for v in values], units, scheme)


def skill(
    scores: Sequence[float],
    references: Sequence[float],
    units: Sequence[Unit] | Clusters,
    scheme: Clustering,
) -> Estimate | None:
    """1 - mean(scores) / mean(references) (e.g. Brier skill against the market), with the
    delta-method standard error; None when empty or the reference mean is not positive."""
    n = len(scores)
    if n == 0:
        return None
    mean_x, mean_y = math.fsum(scores) / n, math.fsum(references) / n
    if mean_y <= 0.0:
        return None
    ratio = mean_x / mean_y
    # d(1 - X/Y) = -(dX - ratio dY) / Y: the influence of observation i.
    psi = [-(x - ratio * y) / (n * mean_y) for x, y in zip(scores, references, strict=True)]
    return estimate_of(1.0 - ratio, psi, units, scheme)
