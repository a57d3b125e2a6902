"""Stand-in models for the offline demo: seeded, simulated forecasters for the seven families.

Each stand-in reads the decision prompt a real model would get and answers in the v1 reply
format, with a skill of its own: it knows how the price simulation will resolve each market
(``foresight``) and lets a fixed share of that into its probabilities (``profiles``), plus noise.
A seeded few of its replies are malformed, so format retries and the HOLD fallback happen. They
are served on loopback by ``StandInServer`` and reached through the real ``OpenRouterClient``.

They are simulations, not the models they stand in for: their family ids start with
``standin-``, their display names say "stand-in (simulated)", and their specs carry
``stand_in=True``.
"""

from arena_local.standins.foresight import Foresight, foresight_from
from arena_local.standins.lineup import is_stand_in, standin_lineup
from arena_local.standins.models import StandInModels
from arena_local.standins.profiles import PROFILES, Profile
from arena_local.standins.server import StandInServer

__all__ = [
    "PROFILES",
    "Foresight",
    "Profile",
    "StandInModels",
    "StandInServer",
    "foresight_from",
    "is_stand_in",
    "standin_lineup",
]
