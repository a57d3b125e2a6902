"""A family aggregate as flat numeric attributes, so transactions can ``ADD`` to them.

The calibration tuples become one attribute per bin (``cal_count_3`` is bin 3's count): DynamoDB
can add to a number atomically but not to an element of a list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from arena_core.domain.aggregates import CALIBRATION_BINS, FamilyAggregate
from arena_core.domain.money import ZERO
from arena_core.domain.portfolio import BetScore
from arena_core.scoring.aggregates import scores_aggregate

BINNED = ("cal_count", "cal_forecast", "cal_wins")


def flatten(aggregate: FamilyAggregate) -> dict[str, int | Decimal]:
    """Every counter of the aggregate as ``name -> number`` (the family id left out)."""
    flat: dict[str, int | Decimal] = dict(aggregate.model_dump(exclude={"family_id", *BINNED}))
    for name in BINNED:
        for index, value in enumerate(getattr(aggregate, name)):
            flat[f"{name}_{index}"] = value
    return flat


def score_increments(scores: Sequence[BetScore]) -> dict[str, int | Decimal]:
    """What one settlement's bet scores add, without the counters they leave at zero."""
    added = flatten(scores_aggregate("-", scores))
    return {name: value for name, value in added.items() if value}


def from_flat(family_id: str, flat: Mapping[str, Any]) -> FamilyAggregate:
    """Rebuild an aggregate from its stored attributes (absent counters are zero)."""
    fields: dict[str, Any] = {
        name: flat[name] for name in FamilyAggregate.model_fields if name in flat
    }
    for name, zero in (("cal_count", 0), ("cal_forecast", ZERO), ("cal_wins", 0)):
        fields[name] = tuple(flat.get(f"{name}_{i}", zero) for i in range(CALIBRATION_BINS))
    fields["family_id"] = family_id
    return FamilyAggregate.model_validate(fields)
