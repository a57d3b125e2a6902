"""Lineup releases as pure data: which release is in force, how a change reshapes a lineup,
and where a family changed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from arena_core.domain.lineup import BASELINES, AgentKind
from arena_core.domain.releases import (
    LineupRelease,
    family_changes,
    first_lineup,
    provider_of,
    release_in_force,
    with_model,
    without_family,
)

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def _releases() -> list[LineupRelease]:
    first = first_lineup()
    second = with_model(first, "kimi-k2", "moonshotai/kimi-k2.5")
    third = without_family(second, "kimi-k2")
    return [
        LineupRelease(release=n, effective_from=T0 + timedelta(days=7 * (n - 1)), lineup=lineup)
        for n, lineup in enumerate((first, second, third), start=1)
    ]


def test_the_release_in_force_is_the_newest_effective_one() -> None:
    releases = _releases()
    assert release_in_force(releases, T0 + timedelta(days=8)) == releases[1]
    assert release_in_force(releases, T0 + timedelta(days=14)) == releases[2]
    # Before release 1 was written, release 1 is what every cohort had
    assert release_in_force(releases, T0 - timedelta(days=30)) == releases[0]
    assert release_in_force([], T0) is None


def test_a_new_family_joins_the_models_before_the_baselines_with_its_provider() -> None:
    lineup = with_model(first_lineup(), "mistral-large", "mistralai/mistral-large-3")
    assert lineup[-len(BASELINES) :] == BASELINES
    added = lineup[-len(BASELINES) - 1]
    assert (added.family_id, added.kind, added.provider) == (
        "mistral-large",
        AgentKind.LLM,
        "mistralai",
    )
    assert provider_of("anthropic/claude-opus-5") == "Anthropic"


def test_a_changed_family_keeps_its_place_name_and_provider_unless_given() -> None:
    first = first_lineup()
    changed = with_model(first, "grok-4", "x-ai/grok-5")
    position = [s.family_id for s in first].index("grok-4")
    assert changed[position].model_id == "x-ai/grok-5"
    assert changed[position].display_name == first[position].display_name
    renamed = with_model(first, "grok-4", "x-ai/grok-5", display_name="Grok 5")
    assert renamed[position].display_name == "Grok 5"


def test_family_changes_list_the_releases_where_a_family_moved_or_left() -> None:
    releases = _releases()
    changes = family_changes(releases, "kimi-k2")
    assert [(r.release, s.model_id if s else None) for r, s in changes] == [
        (1, "moonshotai/kimi-k2-thinking"),
        (2, "moonshotai/kimi-k2.5"),
        (3, None),
    ]
    assert [r.release for r, _ in family_changes(releases, "grok-4")] == [1]


def test_a_lineup_names_each_family_once() -> None:
    with pytest.raises(ValueError, match="twice"):
        LineupRelease(release=1, effective_from=T0, lineup=(*BASELINES, BASELINES[0]))
    with pytest.raises(ValueError, match="not in the lineup"):
        without_family(BASELINES, "kimi-k2")
