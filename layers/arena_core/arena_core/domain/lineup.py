"""The model-family lineup (methodology v1 §4) and the baseline agents.

The lineup is configuration: each cohort freezes the lineup in force when it opens, so changing
this table never rewrites history. Stable ids are for joins, display names for presentation.
"""

from __future__ import annotations

from enum import StrEnum

from arena_core.domain.base import DomainModel
from arena_core.domain.ids import FamilyId, ModelId


class AgentKind(StrEnum):
    LLM = "llm"
    BASELINE = "baseline"


class ModelFamily(DomainModel):
    """One benchmark slot: a stable id that never changes, and the model currently behind it."""

    id: FamilyId
    display_name: str
    provider: str
    openrouter_id: ModelId


class AgentSpec(DomainModel):
    """What a cohort freezes per agent: who it is and what answers for it. ``stand_in`` marks
    a simulated stand-in for a model (the local demo's): shown as such everywhere, never as
    the real model."""

    family_id: FamilyId
    display_name: str  # bounded where it enters (``ids.display_name``), shown inert
    kind: AgentKind
    model_id: ModelId
    provider: str
    stand_in: bool = False

    @classmethod
    def for_family(cls, family: ModelFamily) -> AgentSpec:
        return cls(
            family_id=family.id,
            display_name=family.display_name,
            kind=AgentKind.LLM,
            model_id=family.openrouter_id,
            provider=family.provider,
        )


LINEUP_V1: tuple[ModelFamily, ...] = (
    ModelFamily(
        id="gpt-5.1", display_name="GPT-5.2", provider="OpenAI", openrouter_id="openai/gpt-5.2"
    ),
    ModelFamily(
        id="gemini-2.5-flash",
        display_name="Gemini 3 Pro",
        provider="Google",
        openrouter_id="google/gemini-3-pro-preview",
    ),
    ModelFamily(
        id="grok-4", display_name="Grok 4.1", provider="xAI", openrouter_id="x-ai/grok-4.1-fast"
    ),
    ModelFamily(
        id="claude-opus-4.5",
        display_name="Claude Opus 4.5",
        provider="Anthropic",
        openrouter_id="anthropic/claude-opus-4.5",
    ),
    ModelFamily(
        id="deepseek-v3.1",
        display_name="DeepSeek V3.2",
        provider="DeepSeek",
        openrouter_id="deepseek/deepseek-v3.2",
    ),
    ModelFamily(
        id="kimi-k2",
        display_name="Kimi K2",
        provider="Moonshot AI",
        openrouter_id="moonshotai/kimi-k2-thinking",
    ),
    ModelFamily(
        id="qwen-3-next",
        display_name="Qwen 3",
        provider="Alibaba",
        openrouter_id="qwen/qwen3-235b-a22b-2507",
    ),
)

BASELINES: tuple[AgentSpec, ...] = (
    AgentSpec(
        family_id="baseline-market-follower",
        display_name="Market follower (baseline)",
        kind=AgentKind.BASELINE,
        model_id="market-follower",
        provider="baseline",
    ),
    AgentSpec(
        family_id="baseline-always-hold",
        display_name="Always hold (baseline)",
        kind=AgentKind.BASELINE,
        model_id="always-hold",
        provider="baseline",
    ),
    AgentSpec(
        family_id="baseline-random",
        display_name="Random (baseline)",
        kind=AgentKind.BASELINE,
        model_id="random",
        provider="baseline",
    ),
)


def default_lineup(
    *, include_llms: bool = True, include_baselines: bool = True
) -> tuple[AgentSpec, ...]:
    """The agents a new cohort gets: the seven families, then the baselines."""
    llms = tuple(AgentSpec.for_family(f) for f in LINEUP_V1) if include_llms else ()
    return llms + (BASELINES if include_baselines else ())
