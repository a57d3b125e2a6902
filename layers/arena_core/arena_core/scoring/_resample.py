"""The engine under the cohort bootstrap: cohort draws and per-resample sums.

Every bootstrap statistic here is a function of a few per-cohort sums (sufficient statistics)
added up over the cohorts drawn in stage 1. The cost is therefore ``resamples x cohorts`` table
look-ups, and the module exists to make those cheap in pure Python:

* cohort indices come from ``randbytes`` filtered by ``bytes.translate`` (uniform, done in C);
* all the sums of one call travel together as 64-bit fixed-point lanes of one Python integer,
  so one pass of integer additions sums every statistic at once, with no rounding along the
  way (each value is rounded once, to within 2^-61 of K times its column's range);
* draws are taken two at a time from a table of pair sums, which halves the additions.
"""

from __future__ import annotations

import math
import random
import sys
from array import array
from collections.abc import Sequence
from itertools import repeat, starmap
from operator import add, mul, sub
from typing import Literal

_LANE_BITS = 64
# A lane's sum of K draws stays below 2**62 + K, far inside the 64 bits: no carry crosses lanes.
_HEADROOM_BITS = 62
_BYTE_VALUES = 256


def cohort_indices(rng: random.Random, k: int, count: int) -> bytes:
    """``count`` independent uniform indices in [0, k) for k <= 256, one per byte.

    Bytes at or above the largest multiple of k are deleted (rejection sampling), so the
    modulo mapping of the rest is exactly uniform.
    """
    limit = _BYTE_VALUES - _BYTE_VALUES % k
    table = bytes(i % k for i in range(_BYTE_VALUES))
    reject = bytes(range(limit, _BYTE_VALUES))
    out = bytearray()
    while len(out) < count:
        missing = count - len(out)
        out += rng.randbytes(missing * _BYTE_VALUES // limit + 16).translate(table, reject)
    return bytes(out[:count])


def resampled_sums(
    columns: Sequence[Sequence[float]], *, resamples: int, rng: random.Random
) -> list[list[float]]:
    """Stage 1 of the cohort bootstrap: per column, ``resamples`` sums over K drawn cohorts.

    ``columns`` hold one value per cohort (all of length K); every column uses the same draws,
    which keeps the statistics of one resample consistent with each other.
    """
    k = len(columns[0])
    packed = [0] * k
    lanes: list[tuple[int, float, int]] = []  # (column, offset, binary exponent)
    for position, column in enumerate(columns):
        low, high = min(column), max(column)
        if high == low:
            continue  # constant: its sum is k * low whatever is drawn, no lane needed
        spread = k * (high - low)
        if not math.isfinite(spread):
            raise ValueError("values too large to resample")
        exponent = _HEADROOM_BITS - math.frexp(spread)[1]
        shift = _LANE_BITS * len(lanes)
        # Offset by the minimum so lanes stay non-negative: no borrow ever crosses a lane.
        for c, value in enumerate(column):
            packed[c] += round(math.ldexp(value - low, exponent)) << shift
        lanes.append((position, low, exponent))
    totals = _draw_totals(packed, resamples, rng) if lanes else []
    out = [[k * min(column)] * resamples for column in columns]
    if not lanes:
        return out
    # Unpack every lane at once in C: each total as little-endian bytes, read back as unsigned
    # 64-bit words (lane l of resample r is word r * lanes + l).
    width = _LANE_BITS // 8 * len(lanes)
    little: Literal["little"] = "little"
    raw = b"".join(map(int.to_bytes, totals, repeat(width), repeat(little)))
    words = array("Q", raw)  # "Q" is 8 bytes on every platform CPython supports
    if sys.byteorder == "big":
        words.byteswap()
    for lane, (position, low, exponent) in enumerate(lanes):
        scaled = map(mul, words[lane :: len(lanes)], repeat(math.ldexp(1.0, -exponent)))
        out[position] = list(map(add, scaled, repeat(k * low)))
    return out


def _draw_totals(packed: list[int], resamples: int, rng: random.Random) -> list[int]:
    """Sum of ``packed`` over K uniform draws with replacement, ``resamples`` times."""
    k = len(packed)
    if k == 1:
        return [packed[0]] * resamples
    if k > _BYTE_VALUES:  # rare (five years of weekly cohorts): plain draws, one at a time
        drawn = map(packed.__getitem__, rng.choices(range(k), k=k * resamples))
        return list(map(sum, zip(*[drawn] * k, strict=True)))
    half = k // 2
    pairs = array("H")
    pairs.frombytes(cohort_indices(rng, k, 2 * half * resamples))
    # An unsigned short of two index bytes is a + 256 * b (b + 256 * a on big-endian machines:
    # the table is symmetric, so the result is the same). Slots with a >= k are never read.
    gap = [0] * (_BYTE_VALUES - k)
    table: list[int] = []
    for value in packed:
        table += map(value.__add__, packed)
        table += gap
    drawn = map(table.__getitem__, pairs)
    totals = list(map(sum, zip(*[drawn] * half, strict=True)))
    if k % 2:
        singles = cohort_indices(rng, k, resamples)
        totals = list(map(add, totals, map(packed.__getitem__, singles)))
    return totals


def gaussians(rng: random.Random, count: int) -> list[float]:
    """``count`` standard normal draws by Box-Muller, both halves of each pair used.

    Written as chains of ``map`` so the arithmetic runs in C: several times faster than calling
    ``rng.gauss`` once per draw.
    """
    half = (count + 1) // 2
    # 1 - random() lies in (0, 1], so the logarithm is finite.
    u1 = map(sub, repeat(1.0), starmap(rng.random, repeat((), half)))
    radius = list(map(math.sqrt, map(mul, map(math.log, u1), repeat(-2.0))))
    angle = list(map(mul, starmap(rng.random, repeat((), half)), repeat(math.tau)))
    cosines = map(mul, radius, map(math.cos, angle))
    sines = map(mul, radius, map(math.sin, angle))
    return [*cosines, *sines][:count]


def percentile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default, Hyndman-Fan type 7)."""
    position = (len(ordered) - 1) * q
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (position - below) * (ordered[above] - ordered[below])


def standard_deviation(values: Sequence[float]) -> float:
    """Sample standard deviation (n - 1); 0 for fewer than two values."""
    if len(values) < 2:
        return 0.0
    mean = math.fsum(values) / len(values)
    deviations = list(map(sub, values, repeat(mean)))
    return math.sqrt(math.fsum(map(mul, deviations, deviations)) / (len(values) - 1))
