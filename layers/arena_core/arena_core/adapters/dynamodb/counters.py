"""A family aggregate as flat integer attributes, so transactions can ``ADD`` to them.

The calibration tuples become one attribute per bin (``cal_count_3`` is bin 3's count): DynamoDB
can add to a number atomically but not to an element of a list. Decimal sums are stored as whole
trillionths (``brier_sum_e12``), every score being a whole number of trillionths: additions of
integers are exact on any engine (moto reads back tiny decimal sums it wrote itself, such as
``-2E-12``, as invalid). Tables written before carried the decimal sums under the plain names
(``brier_sum``); both are read and added, so no migration is needed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from arena_core.domain.aggregates import CALIBRATION_BINS, FamilyAggregate
from arena_core.domain.money import ZERO
from arena_core.domain.portfolio import BetScore
from arena_core.scoring.aggregates import scores_aggregate

SCALE_EXPONENT = 12
DECIMAL_SUMS = ("brier_sum", "market_brier_sum", "log_score_sum")
COUNTS = ("scored_bets", "wins", "trades", "settled_positions")


def _scaled(value: Decimal) -> int:
    scaled = value.scaleb(SCALE_EXPONENT)
    if scaled != scaled.to_integral_value():
        raise ValueError(f"{value} is not a whole number of trillionths")
    return int(scaled)


def _unscaled(value: Any) -> Decimal:
    return Decimal(value).scaleb(-SCALE_EXPONENT)


def flatten(aggregate: FamilyAggregate) -> dict[str, int]:
    """Every counter of the aggregate as ``name -> integer`` (the family id left out)."""
    flat = {name: int(getattr(aggregate, name)) for name in COUNTS}
    flat |= {f"{name}_e12": _scaled(getattr(aggregate, name)) for name in DECIMAL_SUMS}
    for index in range(CALIBRATION_BINS):
        flat[f"cal_count_{index}"] = aggregate.cal_count[index]
        flat[f"cal_wins_{index}"] = aggregate.cal_wins[index]
        flat[f"cal_forecast_e12_{index}"] = _scaled(aggregate.cal_forecast[index])
    return flat


def score_increments(scores: Sequence[BetScore]) -> dict[str, int]:
    """What these bet scores add, without the counters they leave at zero."""
    added = flatten(scores_aggregate("-", scores))
    return {name: value for name, value in added.items() if value}


def _decimal(flat: Mapping[str, Any], name: str, scaled: str) -> Decimal:
    return Decimal(flat.get(name, ZERO)) + _unscaled(flat.get(scaled, 0))


def from_flat(family_id: str, flat: Mapping[str, Any]) -> FamilyAggregate:
    """Rebuild an aggregate from its stored attributes (absent counters are zero)."""
    return FamilyAggregate(
        family_id=family_id,
        **{name: int(flat.get(name, 0)) for name in COUNTS},
        **{name: _decimal(flat, name, f"{name}_e12") for name in DECIMAL_SUMS},
        cal_count=tuple(int(flat.get(f"cal_count_{i}", 0)) for i in range(CALIBRATION_BINS)),
        cal_wins=tuple(int(flat.get(f"cal_wins_{i}", 0)) for i in range(CALIBRATION_BINS)),
        cal_forecast=tuple(
            _decimal(flat, f"cal_forecast_{i}", f"cal_forecast_e12_{i}")
            for i in range(CALIBRATION_BINS)
        ),
    )
