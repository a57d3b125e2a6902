"""Lineup releases on every store: seeded from the v1 table, appended as consecutive numbers
even by concurrent writers, and frozen by each cohort when it opens (so a release changes only
cohorts opened after it)."""

from __future__ import annotations

import threading
from datetime import timedelta
from itertools import pairwise

import pytest

from arena_core.domain.lineup import BASELINES, LINEUP_V1, AgentKind
from arena_core.domain.releases import LineupRelease
from arena_core.errors import ConfigurationError
from arena_core.ports.clock import FixedClock
from arena_core.ports.stores import Stores
from arena_core.services.lineup import LineupService
from arena_core.services.open_cohort import OpenCohortService
from tests.support.builders import WEEK0


def _service(stores: Stores, clock: FixedClock) -> LineupService:
    return LineupService(stores.lineups, clock)


def test_release_one_is_the_v1_table_and_the_baselines_seeded_on_first_use(
    stores: Stores,
) -> None:
    # Given an empty table
    assert stores.lineups.releases() == []
    # When the lineup in force is asked for
    release = _service(stores, FixedClock(WEEK0)).in_force()
    # Then release 1 holds the seven families of the v1 table, then the baselines
    assert release.release == 1 and release.effective_from == WEEK0
    models = [s for s in release.lineup if s.kind is AgentKind.LLM]
    assert [(s.family_id, s.model_id) for s in models] == [
        (f.id, f.openrouter_id) for f in LINEUP_V1
    ]
    assert release.lineup[len(LINEUP_V1) :] == BASELINES
    assert stores.lineups.releases() == [release]


def test_a_release_changes_only_cohorts_opened_after_it(stores: Stores) -> None:
    # Given the first week's cohort, opened with release 1
    clock = FixedClock(WEEK0)
    lineups = _service(stores, clock)
    opener = OpenCohortService(stores.cohorts, clock, lineups)
    first = opener.open()
    # When a family moves to a newer model mid-week
    clock.set(WEEK0 + timedelta(days=3))
    release = lineups.set_model("kimi-k2", "moonshotai/kimi-k2.5", display_name="Kimi K2.5")
    # Then a late duplicate delivery of the first week's opener changes nothing
    assert opener.open(WEEK0 + timedelta(minutes=1)).created is False
    # And the next week's cohort freezes the new release; the first keeps its lineup
    clock.set(WEEK0 + timedelta(days=7))
    second = opener.open()
    cohort_1 = stores.cohorts.get_cohort(first.cohort_id)
    cohort_2 = stores.cohorts.get_cohort(second.cohort_id)
    assert cohort_1 is not None and cohort_2 is not None
    assert (cohort_1.lineup_release, cohort_2.lineup_release) == (1, release.release) == (1, 2)
    kimi_1 = next(s for s in cohort_1.lineup if s.family_id == "kimi-k2")
    kimi_2 = next(s for s in cohort_2.lineup if s.family_id == "kimi-k2")
    assert kimi_1.model_id == "moonshotai/kimi-k2-thinking"
    assert (kimi_2.model_id, kimi_2.display_name) == ("moonshotai/kimi-k2.5", "Kimi K2.5")
    agents = {a.family_id: a for a in stores.cohorts.agents(second.cohort_id)}
    assert agents["kimi-k2"].model_id == "moonshotai/kimi-k2.5"


def test_concurrent_sets_give_consecutive_releases_and_lose_none(stores: Stores) -> None:
    # Given release 1, and eight operators changing eight families at once
    clock = FixedClock(WEEK0)
    _service(stores, clock).in_force()
    changes = {f"family-{i}": f"provider/model-{i}" for i in range(8)}
    barrier = threading.Barrier(len(changes))
    errors: list[BaseException] = []

    def change(family_id: str, model_id: str) -> None:
        try:
            barrier.wait()
            _service(stores, clock).set_model(family_id, model_id)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=change, args=item) for item in changes.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Then every change landed, each as its own release, numbered 2 to 9 without a gap
    assert errors == []
    releases = stores.lineups.releases()
    assert [r.release for r in releases] == list(range(1, 10))
    latest = {s.family_id: s.model_id for s in releases[-1].lineup}
    assert {f: latest.get(f) for f in changes} == changes
    # And each release is its predecessor plus exactly one new family
    for before, after in pairwise(releases):
        assert len(after.lineup) == len(before.lineup) + 1


def test_a_retired_family_leaves_later_cohorts_and_its_id_is_never_reused(
    stores: Stores,
) -> None:
    # Given a family retired and a successor added under a new stable id
    clock = FixedClock(WEEK0)
    lineups = _service(stores, clock)
    retired = lineups.retire("qwen-3-next")
    added = lineups.set_model("qwen-4", "qwen/qwen4-max", display_name="Qwen 4")
    # Then the releases say so, the new family sits before the baselines
    assert (retired.release, added.release) == (2, 3)
    ids = [s.family_id for s in added.lineup]
    assert "qwen-3-next" not in ids
    assert ids.index("qwen-4") == len(LINEUP_V1) - 1
    assert added.family("qwen-4") is not None
    # And the retired id cannot come back for another model line; a baseline is no family
    with pytest.raises(ConfigurationError, match="retired in release 2"):
        lineups.set_model("qwen-3-next", "qwen/qwen4-max")
    with pytest.raises(ConfigurationError, match="baseline"):
        lineups.set_model("baseline-random", "openai/gpt-5.2")
    with pytest.raises(ConfigurationError, match="nothing changes"):
        lineups.set_model("qwen-4", "qwen/qwen4-max")
    assert [r.release for r in stores.lineups.releases()] == [1, 2, 3]


def test_a_release_number_is_written_once(stores: Stores) -> None:
    release = LineupRelease(release=1, effective_from=WEEK0, lineup=BASELINES)
    assert stores.lineups.add_release(release) is True
    other = release.model_copy(update={"lineup": BASELINES[:1]})
    assert stores.lineups.add_release(other) is False
    assert stores.lineups.releases() == [release]


def test_deployment_switches_filter_the_release_a_cohort_freezes(stores: Stores) -> None:
    # Given a deployment without LLMs (arena:includeLlms=false)
    clock = FixedClock(WEEK0)
    opener = OpenCohortService(stores.cohorts, clock, _service(stores, clock), include_llms=False)
    # When its cohort opens, then it has the release's baselines only
    result = opener.open()
    cohort = stores.cohorts.get_cohort(result.cohort_id)
    assert cohort is not None and cohort.lineup == BASELINES and result.agents == len(BASELINES)
