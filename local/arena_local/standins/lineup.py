"""The stand-in lineup: one simulated agent per model family of ``LINEUP_V1``.

Stand-ins get family ids of their own (``standin-<family id>``), never the real family's, so no
score, export or page can ever file a simulated result under a real model's name.
"""

from __future__ import annotations

from arena_core.domain.lineup import LINEUP_V1, AgentKind, AgentSpec, ModelFamily

FAMILY_PREFIX = "standin-"
MODEL_PREFIX = "standin/"
PROVIDER = "stand-in"


def standin_spec(family: ModelFamily) -> AgentSpec:
    return AgentSpec(
        family_id=f"{FAMILY_PREFIX}{family.id}",
        display_name=f"{family.display_name} stand-in (simulated)",
        kind=AgentKind.LLM,
        model_id=f"{MODEL_PREFIX}{family.id}",
        provider=PROVIDER,
        stand_in=True,
    )


def standin_lineup() -> tuple[AgentSpec, ...]:
    """The seven stand-ins, in the order of the real lineup."""
    return tuple(standin_spec(family) for family in LINEUP_V1)


def is_stand_in(family_id: str) -> bool:
    """Whether a family id names a stand-in (for data that lacks the ``stand_in`` flag)."""
    return family_id.startswith(FAMILY_PREFIX)
