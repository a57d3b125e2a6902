"""Review 31: ``analysis/stored.py`` reads back every board ``analyze_forecasts`` computes
exactly: not only equal, but of the same types everywhere (an int where a float was, a list
where a tuple was, would print or export differently), on varied inputs, under both measures,
with breakdowns, calibration or none, and every clustering."""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any

import pytest

from arena_core.analysis import stored
from arena_core.analysis.board import analyze_forecasts
from arena_core.analysis.clustered import Clustering
from arena_core.analysis.figures import BRIER, PEER, Measure, Rules
from tests.unit.analysis.test_board import forecast


def _difference(a: Any, b: Any, path: str = "board") -> str | None:
    """Where two values differ in type or value (floats to the bit, NaN equal to NaN)."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, Measure):
        return None if a is b else path
    if dataclasses.is_dataclass(a):
        pairs = [(getattr(a, f.name), getattr(b, f.name), f.name) for f in dataclasses.fields(a)]
    elif isinstance(a, dict):
        if list(a) != list(b):
            return f"{path}: keys"
        pairs = [(a[k], b[k], repr(k)) for k in a]
    elif isinstance(a, list | tuple):
        if len(a) != len(b):
            return f"{path}: length"
        pairs = [(x, y, str(i)) for i, (x, y) in enumerate(zip(a, b, strict=True))]
    elif isinstance(a, float):
        same = (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
        return None if same else f"{path}: {a!r} vs {b!r}"
    else:
        return None if a == b else f"{path}: {a!r} vs {b!r}"
    for x, y, name in pairs:
        found = _difference(x, y, f"{path}.{name}")
        if found:
            return found
    return None


@pytest.mark.parametrize("seed", range(40))
def test_a_stored_board_reads_back_of_the_same_types_and_bits(seed: int) -> None:
    rnd = random.Random(seed)
    families = ["a", "b", "c", "d"][: rnd.randint(1, 4)]
    rows = [
        forecast(
            family,
            week,
            f"m{week}{i}" if rnd.random() < 0.7 else f"m{week}{i}{family}",
            rnd.choice([0.0, 1.0, 0.5, 1e-12, rnd.random()]),
            rnd.randint(0, 1),
            market_p_yes=rnd.choice([0.5, 0.0, 1.0, rnd.random()]),
            peer=rnd.uniform(-1, 1),
            baseline=rnd.uniform(-1, 1),
            matured=rnd.random() < 0.8,
            category=rnd.choice(["x", "y", ""]),
        )
        for family in families
        for week in range(rnd.randint(0, 4))
        for i in range(rnd.randint(0, 5))
    ]
    measure = rnd.choice([BRIER, PEER])
    rules = Rules(
        min_forecasts=rnd.randint(0, 6),
        min_cohorts=rnd.randint(0, 2),
        min_weeks=rnd.randint(0, 2),
        min_events=rnd.randint(0, 2),
        clustering=rnd.choice(list(Clustering)),
    )
    board = analyze_forecasts(
        rows,
        rankable=set(families[: max(1, len(families) - 1)]),
        compared=set(families),
        measure=measure,
        rules=rules,
        peer_market=measure is PEER,
        groups={"category": lambda f: f.category, "week": lambda f: f.week},
        calibrate=rnd.random() < 0.7,
    )
    assert _difference(board, stored.load_board(stored.dump_board(board))) is None
