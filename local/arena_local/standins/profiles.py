"""Each stand-in's fixed character: how much it knows, how noisy it is, what it "costs".

The parameters come from one fixed seed, not the demo's ``--seed``: a family's stand-in is the
same forecaster in every run, so runs with different seeds differ in their markets, not in who
is good. Families are ranked in a seeded order and spread evenly along that order, skill rising
as noise falls, so the seven clearly differ (the least skilful is close to the market price plus
wide noise, the most skilful moves 60% of the way toward the truth with little noise).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from arena_core.domain.lineup import LINEUP_V1

PROFILE_SEED = "standin-profiles-v1"
MAX_SKILL = 0.6
MIN_NOISE, MAX_NOISE = 0.02, 0.25
JITTER = 0.02  # keeps the spread from looking machine-made without reordering the families


@dataclass(frozen=True)
class Profile:
    """A stand-in's skill (share of the way from the price to the truth) and noise (standard
    deviation of its error), with made-up dollar prices per million tokens for the usage."""

    family_id: str
    skill: float
    noise: float
    input_price: Decimal
    output_price: Decimal


def _clip(value: float, low: float, high: float) -> float:
    return round(min(max(value, low), high), 3)


def _profiles() -> dict[str, Profile]:
    rng = random.Random(PROFILE_SEED)
    order = [family.id for family in LINEUP_V1]
    rng.shuffle(order)
    profiles = {}
    for rank, family_id in enumerate(order):  # rank 0 is the least skilful
        share = rank / (len(order) - 1)
        skill = _clip(MAX_SKILL * share + rng.uniform(-JITTER, JITTER), 0.0, MAX_SKILL)
        noise = MAX_NOISE - (MAX_NOISE - MIN_NOISE) * share + rng.uniform(-JITTER, JITTER)
        input_price = Decimal(rng.randint(10, 300)) / 100
        profiles[family_id] = Profile(
            family_id=family_id,
            skill=skill,
            noise=_clip(noise, MIN_NOISE, MAX_NOISE),
            input_price=input_price,
            output_price=input_price * rng.choice((3, 4, 5, 8)),
        )
    return {family.id: profiles[family.id] for family in LINEUP_V1}  # in lineup order


PROFILES: Mapping[str, Profile] = _profiles()
