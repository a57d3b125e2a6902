"""Lineup releases: the lineup in force is data, versioned, never a code change.

Release 1 is the methodology's v1 table (the seven families and the baselines). Each change (a
family moved to a newer model, a family added or retired) is the next release, effective from
the moment it was written. A cohort freezes the release in force when it opens, so a release
changes only cohorts opened after it; earlier cohorts keep the lineup they started with. Family
ids are stable: a retired family's id is never reused for another model line.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import field_validator

from arena_core.domain.base import DomainModel
from arena_core.domain.lineup import LINEUP_V1, AgentKind, AgentSpec, default_lineup


class LineupRelease(DomainModel):
    """One numbered release: the agents a cohort opened at or after ``effective_from`` gets."""

    release: int
    effective_from: datetime
    lineup: tuple[AgentSpec, ...]
    note: str = ""

    @field_validator("lineup")
    @classmethod
    def _unique_families(cls, lineup: tuple[AgentSpec, ...]) -> tuple[AgentSpec, ...]:
        ids = [spec.family_id for spec in lineup]
        if len(set(ids)) != len(ids):
            raise ValueError(f"a family appears twice in the lineup: {ids}")
        return lineup

    def family(self, family_id: str) -> AgentSpec | None:
        return next((s for s in self.lineup if s.family_id == family_id), None)


def first_lineup() -> tuple[AgentSpec, ...]:
    """Release 1: the v1 table of the methodology, then the baselines."""
    return default_lineup()


def release_in_force(releases: Sequence[LineupRelease], at: datetime) -> LineupRelease | None:
    """The newest release effective at ``at``; before the first release, the first one (it is
    the lineup every cohort had before releases were recorded)."""
    ordered = sorted(releases, key=lambda r: r.release)
    effective = [r for r in ordered if r.effective_from <= at]
    if effective:
        return effective[-1]
    return ordered[0] if ordered else None


def with_model(
    lineup: tuple[AgentSpec, ...],
    family_id: str,
    model_id: str,
    *,
    display_name: str | None = None,
    provider: str | None = None,
) -> tuple[AgentSpec, ...]:
    """The lineup with ``family_id`` answered by ``model_id``: a family of the lineup keeps its
    place (and its display name and provider unless given), a new family comes after the other
    model families, before the baselines."""
    current = next((s for s in lineup if s.family_id == family_id), None)
    if current is not None and current.kind is AgentKind.BASELINE:
        raise ValueError(f"{family_id} is a baseline, not a model family")
    spec = AgentSpec(
        family_id=family_id,
        display_name=display_name or (current.display_name if current else family_id),
        kind=AgentKind.LLM,
        model_id=model_id,
        provider=provider or (current.provider if current else provider_of(model_id)),
    )
    if current is not None:
        return tuple(spec if s.family_id == family_id else s for s in lineup)
    models = tuple(s for s in lineup if s.kind is not AgentKind.BASELINE)
    return (*models, spec, *(s for s in lineup if s.kind is AgentKind.BASELINE))


def without_family(lineup: tuple[AgentSpec, ...], family_id: str) -> tuple[AgentSpec, ...]:
    if all(s.family_id != family_id for s in lineup):
        raise ValueError(f"{family_id} is not in the lineup")
    return tuple(s for s in lineup if s.family_id != family_id)


# OpenRouter model ids start with the provider's slug; the v1 table names the provider.
_PROVIDERS = {f.openrouter_id.split("/", 1)[0]: f.provider for f in LINEUP_V1}


def provider_of(model_id: str) -> str:
    """The provider of an OpenRouter model id (``openai/gpt-5.2`` → OpenAI), else its slug."""
    slug = model_id.split("/", 1)[0]
    return _PROVIDERS.get(slug, slug)


def family_changes(
    releases: Sequence[LineupRelease], family_id: str
) -> list[tuple[LineupRelease, AgentSpec | None]]:
    """The releases where ``family_id`` changed (added, moved to another model or renamed, or
    retired: then None), oldest first: what a family's page lists and its chart marks."""
    changes: list[tuple[LineupRelease, AgentSpec | None]] = []
    before: AgentSpec | None = None
    for release in sorted(releases, key=lambda r: r.release):
        spec = release.family(family_id)
        if spec != before and (spec is not None or before is not None):
            changes.append((release, spec))
        before = spec
    return changes
