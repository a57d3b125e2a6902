"""Student's t distribution in pure Python: two-sided tail probabilities and critical values.

The layer ships without SciPy, and the analysis needs t critical values at small degrees of
freedom (few clusters) and small levels (Holm over dozens of pairs). The tail probability is
the regularized incomplete beta function, ``P(|T| >= t) = I_{df / (df + t^2)}(df / 2, 1 / 2)``,
evaluated by its continued fraction (modified Lentz); the critical value inverts it by
bisection, which is slow but exact to double precision and cached. The test suite checks both
against SciPy.
"""

from __future__ import annotations

import functools
import math

_TINY = 1e-300
_EPS = 1e-15
_MAX_TERMS = 400
_BISECTIONS = 200


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz's method)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    result = d
    for m in range(1, _MAX_TERMS + 1):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            step = c * d
            result *= step
        if abs(step - 1.0) < _EPS:
            break
    return result


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) for a, b > 0 and x in [0, 1]."""
    if not (a > 0.0 and b > 0.0) or not 0.0 <= x <= 1.0:
        raise ValueError(f"incomplete_beta needs a, b > 0 and x in [0, 1], got {a}, {b}, {x}")
    if x in (0.0, 1.0):
        return x
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    # The fraction converges fast on the side of the mean; use the symmetry on the other one.
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _continued_fraction(b, a, 1.0 - x) / b


def two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for T ~ Student's t with ``df`` degrees of freedom (df > 0)."""
    if not df > 0.0:
        raise ValueError(f"degrees of freedom must be positive, got {df!r}")
    if math.isnan(t):
        raise ValueError("t is NaN")
    if math.isinf(t):
        return 0.0
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


@functools.lru_cache(maxsize=4096)
def critical_value(df: float, alpha: float) -> float:
    """The t with P(|T| >= t) = alpha: the half-width multiplier of a (1 - alpha) interval."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    low, high = 0.0, 1.0
    while two_sided_p(high, df) > alpha:  # bracket: the tail falls as t grows
        low, high = high, high * 2.0
    for _ in range(_BISECTIONS):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if two_sided_p(middle, df) > alpha:
            low = middle
        else:
            high = middle
    return high
