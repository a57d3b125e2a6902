"""The leaderboard's inputs carried from one publication to the next (``publication/carried.py``,
``publication/state.py``): a tick reads what changed since the last publication, and publishes
the same pages as a publication that read everything."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, cast

import pytest

from arena_core.adapters.manifest import ROOT
from arena_core.adapters.site_publishers import LocalFolderPublisher, state_folder
from arena_core.dataset import rows as inputs
from arena_core.dataset.tables import GLOBAL_TABLES
from arena_core.domain.cohort import Cohort
from arena_core.domain.market import MarketStatus, ResolutionKind
from arena_core.ports.publisher import INTERNAL
from arena_core.ports.stores import ViewStore
from arena_core.publication.carried import HISTORY, History
from arena_core.publication.state import State, object_key
from arena_core.services.publish_site import BOARD, DAILY, FULL, PublishSiteService
from arena_core.services.resolution import ResolutionService
from arena_core.services.snapshot import SnapshotService
from tests.support.builders import WEEK0, resolved
from tests.support.memo import folder_state
from tests.support.scenario import Scenario, build, run_week, universe


class CountingViews:
    """The scenario's view store, counting the reads whose size grows with history."""

    def __init__(self, views: ViewStore) -> None:
        self._views = views
        self.calls: Counter[str] = Counter()
        self.series_windows: list[tuple[str, datetime]] = []

    def family_scores(self, family_id: str) -> Any:
        self.calls["family_scores"] += 1
        return self._views.family_scores(family_id)

    def latest_snapshots(self, cohort: Cohort) -> Any:
        self.calls[f"latest {cohort.status.value}"] += 1
        return self._views.latest_snapshots(cohort)

    def series(self, family_id: str, resolution: str, start: datetime, end: datetime) -> Any:
        self.calls[f"series {resolution}"] += 1
        self.series_windows.append((resolution, start))
        return self._views.series(family_id, resolution, start, end)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._views, name)


def _service(scenario: Scenario, site: Path) -> tuple[PublishSiteService, CountingViews]:
    counting = CountingViews(scenario.stores.views)
    stores = replace(scenario.stores, views=cast(ViewStore, counting))
    return PublishSiteService(stores, LocalFolderPublisher(site), None, scenario.clock), counting


def _state(site: Path) -> tuple[State, History]:
    """The state a publication into ``site`` left, and the history it links."""
    state, read = folder_state(site)
    return state, History.load(read(HISTORY))


def _sealed(state: State) -> list[str]:
    return sorted(
        name.removeprefix("sealed/") for name in state.links if name.startswith("sealed/")
    )


def _count_forecast_rows(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the forecasts tables made from now on (each call's rows)."""
    made: list[int] = []
    original = inputs.forecast_rows

    def counted(*args: Any, **kwargs: Any) -> Any:
        found = original(*args, **kwargs)
        made.append(len(found))
        return found

    monkeypatch.setattr(inputs, "forecast_rows", counted)
    return made


def _tick(scenario: Scenario) -> None:
    scenario.clock.set(scenario.clock.now() + timedelta(minutes=10))
    SnapshotService(scenario.stores, scenario.source, scenario.clock).run()


def _with_a_completed_cohort(site: Path) -> Scenario:
    """A week whose cohort completed (every market it held resolved), then a live one."""
    scenario = build(site, weeks=1)
    _resolve_everything(scenario)
    start = WEEK0 + timedelta(weeks=1)
    run_week(scenario, start, universe(), [])
    for step in range(12):
        scenario.clock.set(start + timedelta(minutes=10 * (step + 1)))
        SnapshotService(scenario.stores, scenario.source, scenario.clock).run()
    return scenario


def _resolve_everything(scenario: Scenario) -> list[str]:
    for market in list(scenario.source.markets.values()):
        if market.status is MarketStatus.OPEN:
            scenario.source.set(resolved(market, ResolutionKind.WINNER, market.sides[0]))
    return list(
        ResolutionService(scenario.stores, scenario.source, scenario.clock).run().completed_cohorts
    )


def test_a_tick_reads_only_what_changed_and_renders_what_a_full_read_renders(
    tmp_path: Path,
) -> None:
    scenario = _with_a_completed_cohort(tmp_path / "unused")
    carried, counting = _service(scenario, tmp_path / "carried")
    carried.run(DAILY)
    first = dict(counting.calls)
    assert first["family_scores"] and first["latest completed"]
    state, history = _state(tmp_path / "carried")
    carried_state = state.carried
    assert history.scores and _sealed(state) and carried_state.series
    assert carried_state.feed is not None
    assert carried_state.score_counts == {f: len(found) for f, found in history.scores.items()}
    _tick(scenario)
    counting.calls.clear()
    counting.series_windows.clear()
    carried.run(BOARD)
    # Nothing settled and nothing completed since: no score and no final snapshot read again,
    # and the carried resolutions read from their last bucket on, not their whole window
    assert counting.calls["family_scores"] == 0
    assert counting.calls["latest completed"] == 0
    assert counting.calls["latest active"] == first["latest active"]
    last = {
        key.split("/")[1]: points[-1].bucket
        for key, points in carried_state.series.items()
        if points and key.startswith("deepseek-v3.1/")
    }
    # The six-hourly points are read from the hourly ones, from their last bucket on
    last["hour"] = min(last["hour"], last["6h"])
    assert all(
        start >= last.get(res, start) for res, start in counting.series_windows if res != "raw"
    )
    # And the pages are those a publication reading everything renders
    fresh, _ = _service(scenario, tmp_path / "fresh")
    fresh.run(BOARD)  # no state there: everything read
    tables = [f"data/{t}.{kind}" for t in GLOBAL_TABLES for kind in ("csv", "json")]
    for path in ("index.html", *tables):  # tables left as published included
        assert (tmp_path / "carried" / path).read_bytes() == (
            tmp_path / "fresh" / path
        ).read_bytes(), path


def test_new_scores_and_a_completed_cohort_are_read_again_and_carried(tmp_path: Path) -> None:
    scenario = build(tmp_path / "unused", weeks=1)
    service, counting = _service(scenario, tmp_path / "site")
    service.run(DAILY)
    state, before = _state(tmp_path / "site")
    assert _sealed(state) == []
    # Every market resolves: the families' aggregates move and the cohort completes
    assert _resolve_everything(scenario)
    aggregates = scenario.stores.views.family_aggregates()
    moved = {f for f, a in aggregates.items() if len(before.scores.get(f, [])) != a.scored_bets}
    assert moved
    counting.calls.clear()
    service.run(BOARD)
    _, after = _state(tmp_path / "site")
    assert counting.calls["family_scores"] == len(moved)
    assert {f: len(after.scores[f]) for f in moved} == {f: aggregates[f].scored_bets for f in moved}
    (cohort,) = scenario.stores.cohorts.cohorts()
    # Completed, not sealed yet: a tick reads its final snapshots until a site-wide
    # publication (within the hour) seals it
    assert counting.calls["latest completed"] == 1
    service.run(FULL)
    state, _ = _state(tmp_path / "site")
    assert _sealed(state) == [cohort.cohort_id]
    counting.calls.clear()
    service.run(BOARD)  # from its record from now on
    assert counting.calls["family_scores"] == 0 and counting.calls["latest completed"] == 0


def test_a_carried_series_out_of_bucket_order_is_not_read(tmp_path: Path) -> None:
    """The carried points are windowed by bisection: a file whose series is not in bucket
    order (or holds a bucket twice) is read as no state at all, and everything is read."""
    scenario = _with_a_completed_cohort(tmp_path / "unused")
    service, _ = _service(scenario, tmp_path / "site")
    service.run(DAILY)
    found, _ = folder_state(tmp_path / "site")
    payload = found.dump()
    state = json.loads(gzip.decompress(payload))
    series = state["carried"]["series"]
    key = next(k for k, points in series.items() if len(points) > 2)
    assert State.load(payload, found.identity)[0].carried.series[key]  # as written: read
    for disorder in (series[key][::-1], [*series[key], series[key][-1]]):
        broken = {**state, "carried": {**state["carried"], "series": {**series, key: disorder}}}
        read, why = State.load(gzip.compress(json.dumps(broken).encode()), found.identity)
        assert read.carried.series == {} and why == "the state could not be read"


def test_an_unreadable_state_is_read_afresh(tmp_path: Path) -> None:
    assert State.load(b"not gzip", "site") == (
        State(identity="site"),
        "the state could not be read",
    )
    assert History.load(b"not gzip") == History()
    assert State.load(None, "site")[0].carried.feed is None
    other = State(version=99, identity="site")
    assert State.load(other.dump(), "site") == (State(identity="site"), "a state of version 99")
    copied = State(identity="another site", links={"history": "0" * 64})
    assert State.load(copied.dump(), "site") == (
        State(identity="site"),
        "a state written for another site",
    )
    assert State().dump() == State().dump()  # deterministic: unchanged, not uploaded


def test_a_completed_cohort_is_read_for_its_positions_once_even_with_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A completed cohort whose agents held nothing has no row in ``position_returns``: it used
    to be read from the ledger again by every tick. Sealed, it is read from its record."""
    scenario = _with_a_completed_cohort(tmp_path / "unused")
    service, _ = _service(scenario, tmp_path / "site")
    read: list[tuple[str, ...]] = []
    original = scenario.stores.ledger.holdings_of

    def counting(agent_ids: Any) -> Any:
        read.append(tuple(agent_ids))
        return original(agent_ids)

    monkeypatch.setattr(scenario.stores.ledger, "holdings_of", counting)
    completed = [c for c in scenario.stores.cohorts.cohorts() if c.status.value == "completed"]
    assert completed
    service.run(DAILY)
    state, _ = _state(tmp_path / "site")
    assert _sealed(state) == [completed[0].cohort_id]
    read.clear()
    _tick(scenario)
    service.run(BOARD)
    done = completed[0].cohort_id
    assert not [ids for ids in read if any(i.startswith(f"{done}.") for i in ids)]


def test_a_tick_with_no_bet_scored_or_matured_formats_no_forecast(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The forecasts table's digest is kept with what it was computed from: a tick in which no
    bet was scored and none matured neither formats nor analyses a forecast; one after bets
    were scored does, and publishes what a publication reading everything publishes (a
    forecast maturing changes the key: ``tests/unit/site/test_inputs_key.py``)."""
    scenario = build(tmp_path / "unused", weeks=1)  # its bets not scored yet
    service, _ = _service(scenario, tmp_path / "site")
    service.run(DAILY)
    made = _count_forecast_rows(monkeypatch)
    _tick(scenario)
    service.run(BOARD)
    assert made == []

    def scored() -> int:
        return sum(a.scored_bets for a in scenario.stores.views.family_aggregates().values())

    before = scored()
    _resolve_everything(scenario)  # the live cohort's bets are scored
    assert scored() > before
    report = service.run(BOARD)
    assert made == [scored()]
    # The ranks moved, the families' costs did not: they are kept (a tick reads no decision)
    recomputed = {miss.split(":")[0] for miss in report.misses}
    assert "board/v1/bets" in recomputed and "board/spend" not in recomputed
    fresh, _ = _service(scenario, tmp_path / "fresh")
    fresh.run(BOARD)
    for path in ("index.html", "data/forecasts.csv", "data/leaderboard.csv"):
        assert (tmp_path / "site" / path).read_bytes() == (tmp_path / "fresh" / path).read_bytes()


def test_a_history_the_state_does_not_name_is_not_read(tmp_path: Path) -> None:
    """As after a publication that uploaded the history and failed before the state (or the
    other way round): the state names the digest of its history, and another one is read as
    none, every score read again."""
    scenario = _with_a_completed_cohort(tmp_path / "unused")
    service, counting = _service(scenario, tmp_path / "site")
    service.run(DAILY)
    state, history = _state(tmp_path / "site")
    family = next(f for f, found in history.scores.items() if found)
    forged = history.model_copy(update={"scores": {**history.scores, family: []}})
    folder = state_folder(tmp_path / "site")
    (folder / object_key(HISTORY).removeprefix(INTERNAL)).write_bytes(forged.dump())
    # Without kept statistics, the tick needs every score
    (folder / object_key("memo/board").removeprefix(INTERNAL)).unlink()
    _tick(scenario)
    counting.calls.clear()
    service.run(BOARD)
    assert counting.calls["family_scores"] == len(state.carried.score_counts)
    assert _state(tmp_path / "site")[1].scores == history.scores
    fresh, _ = _service(scenario, tmp_path / "fresh")
    fresh.run(BOARD)
    for path_name in ("index.html", "data/forecasts.csv", "data/forecasts.json"):
        assert (tmp_path / "site" / path_name).read_bytes() == (
            tmp_path / "fresh" / path_name
        ).read_bytes()


def test_a_forecast_maturing_makes_the_forecasts_table_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept forecasts table holds until the first scored forecast not matured then
    matures (``inputs.next_maturity``): its ``matured`` column changes."""
    scenario = build(tmp_path / "unused", weeks=1, extra=6)  # some scored before their end
    service, _ = _service(scenario, tmp_path / "site")
    service.run(DAILY)
    _, history = _state(tmp_path / "site")
    scores = [s for found in history.scores.values() for s in found]
    until = inputs.next_maturity(scores, scenario.clock.now())
    assert until is not None
    made = _count_forecast_rows(monkeypatch)
    scenario.clock.set(until - timedelta(minutes=1))
    service.run(BOARD)
    assert made == []
    scenario.clock.set(until)
    service.run(BOARD)
    assert made == [len(scores)]
    fresh, _ = _service(scenario, tmp_path / "fresh")
    fresh.run(BOARD)
    for path in ("data/forecasts.csv", "data/forecasts.json", "index.html"):
        assert (tmp_path / "site" / path).read_bytes() == (tmp_path / "fresh" / path).read_bytes()


def test_a_publication_reads_no_file_it_published_for_readers(tmp_path: Path) -> None:
    """The costs, markets and positions tables come from the publication's own state (the
    sealed cohorts', the growing markets table's): a tick and an hourly publication read
    nothing under the site folder, and one damaged out of band changes nothing they write."""
    scenario = _with_a_completed_cohort(tmp_path / "unused")
    site = tmp_path / "site"
    read: Counter[str] = Counter()
    publisher = LocalFolderPublisher(site)
    original = publisher.bucket.get

    def counting(key: str) -> Any:
        read[key] += 1
        return original(key)

    publisher.bucket.get = counting  # type: ignore[method-assign]
    service = PublishSiteService(scenario.stores, publisher, None, scenario.clock)
    service.run(DAILY)
    for path in ("data/costs.json", "data/markets.json", "data/position_returns.json"):
        (site / path).write_bytes(b"[{not json")  # cut, or edited out of band
    for scope in (BOARD, FULL):
        _tick(scenario)
        read.clear()
        report = service.run(scope)
        assert report.lease == "held"
        assert [key for key in read if not key.startswith(INTERNAL)] == []
        assert ROOT in read
    fresh = tmp_path / "fresh"
    PublishSiteService(scenario.stores, LocalFolderPublisher(fresh), None, scenario.clock).run(FULL)
    for path in ("index.html", "data/costs.csv", "data/markets.csv", "data/position_returns.csv"):
        assert (site / path).read_bytes() == (fresh / path).read_bytes(), path
