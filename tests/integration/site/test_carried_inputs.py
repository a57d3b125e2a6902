"""The leaderboard's inputs carried from one publication to the next (``site/carried.py``): a
tick reads what changed since the last publication, and publishes the same pages as a
publication that read everything."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import pytest

from arena_core.adapters.site_publishers import LocalFolderPublisher, state_folder
from arena_core.dataset import rows as inputs
from arena_core.dataset.tables import GLOBAL_TABLES
from arena_core.domain.cohort import Cohort
from arena_core.domain.market import MarketStatus, ResolutionKind
from arena_core.ports.publisher import INTERNAL
from arena_core.ports.stores import ViewStore
from arena_core.publication.carried import CARRIED, HISTORY, KEPT, Carried, History
from arena_core.publication.collect import SiteCollector
from arena_core.publication.costs import FamilyCosts
from arena_core.services.publish_site import BOARD, COSTS_PATH, DAILY, PublishSiteService
from arena_core.services.resolution import ResolutionService
from arena_core.services.snapshot import SnapshotService
from tests.support.builders import WEEK0, resolved
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


def _state(site: Path) -> tuple[Carried, History]:
    """The carried state a publication into ``site`` left, and the history it names."""
    folder = state_folder(site)
    history = folder / HISTORY.removeprefix(INTERNAL)
    return (
        Carried.load((folder / CARRIED.removeprefix(INTERNAL)).read_bytes()),
        History.load(history.read_bytes()) if history.exists() else History(),
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
    assert history.scores and history.finals and state.series and state.feed is not None
    assert state.score_counts == {f: len(found) for f, found in history.scores.items()}
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
        for key, points in state.series.items()
        if points and key.startswith("deepseek-v3.1/")
    }
    # The six-hourly points are read from the hourly ones, from their last bucket on
    last["hour"] = min(last["hour"], last["6h"])
    assert all(
        start >= last.get(res, start) for res, start in counting.series_windows if res != "raw"
    )
    # And the pages are those a publication reading everything renders
    fresh, _ = _service(scenario, tmp_path / "fresh")
    fresh.run(BOARD)  # no carried file there: everything read
    tables = [f"data/{t}.{kind}" for t in GLOBAL_TABLES for kind in ("csv", "json")]
    for path in ("index.html", *tables):  # tables left as published included (table_memo)
        assert (tmp_path / "carried" / path).read_bytes() == (
            tmp_path / "fresh" / path
        ).read_bytes(), path


def test_new_scores_and_a_completed_cohort_are_read_again_and_carried(tmp_path: Path) -> None:
    scenario = build(tmp_path / "unused", weeks=1)
    service, counting = _service(scenario, tmp_path / "site")
    service.run(DAILY)
    _, before = _state(tmp_path / "site")
    assert before.finals == {}
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
    assert [s.agent_id for s in after.finals[cohort.cohort_id]] == sorted(
        a.agent_id for a in cohort.agents()
    )
    counting.calls.clear()
    service.run(BOARD)  # carried from now on
    assert counting.calls["family_scores"] == 0 and counting.calls["latest completed"] == 0


def test_a_carried_series_out_of_bucket_order_is_not_read(tmp_path: Path) -> None:
    """The carried points are windowed by bisection: a file whose series is not in bucket
    order (or holds a bucket twice) is read as no state at all, and everything is read."""
    scenario = _with_a_completed_cohort(tmp_path / "unused")
    service, _ = _service(scenario, tmp_path / "site")
    service.run(DAILY)
    path = state_folder(tmp_path / "site") / CARRIED.removeprefix(INTERNAL)
    state = json.loads(gzip.decompress(path.read_bytes()))
    key = next(k for k, points in state["series"].items() if len(points) > 2)
    assert Carried.load(path.read_bytes()).series[key]  # as written: read
    for disorder in (state["series"][key][::-1], [*state["series"][key], state["series"][key][-1]]):
        broken = {**state, "series": {**state["series"], key: disorder}}
        assert Carried.load(gzip.compress(json.dumps(broken).encode())).series == {}


def test_an_unreadable_carried_file_is_read_afresh(tmp_path: Path) -> None:
    assert Carried.load(b"not gzip").score_counts == {}
    assert History.load(b"not gzip") == History()
    assert Carried.load(None).feed is None
    state = Carried(version=99)
    assert Carried.load(state.dump()) == Carried()  # another version: start over
    assert Carried().dump() == Carried().dump()  # deterministic: unchanged, not uploaded


def test_a_completed_cohort_is_read_for_its_positions_once_even_with_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A completed cohort whose agents held nothing has no row in ``position_returns``: it used
    to be read from the ledger again by every tick. The carried state names the cohorts read."""
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
    collector = SiteCollector(scenario.stores, None, scenario.clock.now())
    assert collector.completed_positions(completed, [], read=[completed[0].cohort_id]) == []
    assert read == []  # named as read: not read again, rows or none
    collector.completed_positions(completed, [])
    assert len(read) == 1
    read.clear()
    service.run(DAILY)
    state = Carried.load(
        (state_folder(tmp_path / "site") / CARRIED.removeprefix(INTERNAL)).read_bytes()
    )
    assert state.positions_read == [completed[0].cohort_id]
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
    service.run(BOARD)
    assert made == [scored()]
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
    (folder / HISTORY.removeprefix(INTERNAL)).write_bytes(forged.dump())
    # Without kept statistics, the tick needs every score
    (folder / KEPT.removeprefix(INTERNAL)).unlink()
    _tick(scenario)
    counting.calls.clear()
    service.run(BOARD)
    assert counting.calls["family_scores"] == len(state.score_counts)
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


class CountingPublisher(LocalFolderPublisher):
    """A folder publisher counting the reads of each path."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.reads: Counter[str] = Counter()

    def read(self, path: str) -> bytes | None:
        self.reads[path] += 1
        return super().read(path)


def test_a_tick_reads_the_costs_table_only_when_it_changed(tmp_path: Path) -> None:
    scenario = _with_a_completed_cohort(tmp_path / "unused")
    site = tmp_path / "site"
    publisher = CountingPublisher(site)
    service = PublishSiteService(scenario.stores, publisher, None, scenario.clock)
    service.run(DAILY)  # writes the costs table, and keeps what each family's row shows of it
    _tick(scenario)
    publisher.reads.clear()
    service.run(BOARD)
    assert publisher.reads[COSTS_PATH] == 0
    folder = state_folder(site)
    state = Carried.load(
        (folder / CARRIED.removeprefix(INTERNAL)).read_bytes(),
        (folder / KEPT.removeprefix(INTERNAL)).read_bytes(),
    )
    assert FamilyCosts.SLOT in state.statistics
    # As a publication that read the table shows them
    fresh = tmp_path / "fresh"
    PublishSiteService(scenario.stores, LocalFolderPublisher(fresh), None, scenario.clock).run(
        BOARD
    )
    assert (site / "index.html").read_bytes() == (fresh / "index.html").read_bytes()
    # Another table published (a decision run's publication): read once, then kept again
    rows = json.loads((site / COSTS_PATH).read_bytes())
    assert rows and not any(Decimal(str(r["cost_usd"])) for r in rows)
    priced = [{**r, "cost_usd": "1.25000000"} for r in rows]
    publisher.publish({COSTS_PATH: json.dumps(priced).encode()})
    publisher.reads.clear()
    service.run(BOARD)
    assert publisher.reads[COSTS_PATH] == 1
    home = (site / "index.html").read_bytes()
    assert home != (fresh / "index.html").read_bytes()  # the new costs are shown
    publisher.reads.clear()
    service.run(BOARD)
    assert publisher.reads[COSTS_PATH] == 0 and (site / "index.html").read_bytes() == home
