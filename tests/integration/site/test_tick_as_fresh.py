"""Red-team of the board tick (review 31): whatever the carried state, the kept statistics and
the tables left out of a publication (``site/table_memo.py``), the site a tick leaves behind is
the one a fresh publication (no carried state, a new folder) writes for the same stores and
time: two methodologies, forecasts maturing between ticks, rules changed, a carried file that
cannot be read, and a publication that fails half-way."""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path

import pytest

from arena_core.adapters.site_publishers import LocalFolderPublisher, state_folder
from arena_core.analysis.figures import Rules
from arena_core.dataset.tables import GLOBAL_TABLES
from arena_core.domain.cohort import CohortStatus
from arena_core.domain.market import MarketStatus, ResolutionKind
from arena_core.errors import PersistenceError
from arena_core.ports.manifest import PARTS
from arena_core.ports.publisher import INTERNAL, PublishReport, digest
from arena_core.publication.carried import CARRIED, KEPT, kept_body, kept_statistics
from arena_core.services.publish_site import BOARD, DAILY, PublishSiteService, Scope
from arena_core.services.resolution import ResolutionService
from arena_core.services.snapshot import SnapshotService
from arena_local.cli import main
from tests.integration.site.test_panel_site import panel_weeks
from tests.support.builders import resolved
from tests.support.scenario import Scenario, build

LOW = Rules(min_forecasts=4, min_cohorts=1, min_weeks=1, min_events=2)
PAGES = ("index.html",)
TABLE_FILES = tuple(f"data/{t}.{kind}" for t in GLOBAL_TABLES for kind in ("csv", "json"))


class FailingPublisher(LocalFolderPublisher):
    """Writes the first ``after`` changed files of each publication (in the order the
    publishers write them: ``upload_order``, readers' files before the bookkeeping), then
    fails, before the manifest is written: a publication that fails half-way."""

    def __init__(self, root: Path, after: int) -> None:
        super().__init__(root)
        self._after = after
        self._written = 0

    def publish(
        self, files: Mapping[str, bytes], known: Mapping[str, str] | None = None
    ) -> PublishReport:
        self._written = 0
        return super().publish(files, known)

    def put(self, path: str, body: bytes) -> None:
        if self._written >= self._after or path.startswith(PARTS):
            raise PersistenceError("the upload failed half-way")
        self._written += 1
        super().put(path, body)


def _publish(
    scenario: Scenario, site: Path, scope: Scope, rules: Rules | None = LOW, after: int = -1
) -> None:
    publisher = LocalFolderPublisher(site) if after < 0 else FailingPublisher(site, after)
    service = PublishSiteService(scenario.stores, publisher, scenario.blobs, scenario.clock, rules)
    service.run(scope)


def _assert_as_fresh(
    scenario: Scenario, site: Path, fresh: Path, scope: Scope = BOARD, rules: Rules | None = LOW
) -> None:
    _publish(scenario, fresh, scope, rules)
    differ = [
        path
        for path in (*PAGES, *TABLE_FILES)
        if (site / path).is_file() != (fresh / path).is_file()
        or ((fresh / path).is_file() and (site / path).read_bytes() != (fresh / path).read_bytes())
    ]
    assert differ == [], differ


def _tick(scenario: Scenario, minutes: int = 10) -> None:
    scenario.clock.set(scenario.clock.now() + timedelta(minutes=minutes))
    SnapshotService(scenario.stores, scenario.source, scenario.clock).run()


def _resolve_everything(scenario: Scenario) -> None:
    for market in list(scenario.source.markets.values()):
        if market.status is MarketStatus.OPEN:
            scenario.source.set(resolved(market, ResolutionKind.WINNER, market.sides[0]))
    ResolutionService(scenario.stores, scenario.source, scenario.clock).run()


def _panel_scenario(site: Path) -> Scenario:
    """One v1 week then two v1+panel weeks (``test_panel_site``'s), the last week's markets
    resolved but not all matured: their scheduled end is 3 days after the run, and they
    resolve a day after it."""
    stores, blobs, clock, source = panel_weeks(last_resolved_after=timedelta(days=1))
    return Scenario(stores, blobs, clock, source, site, LOW)


def test_two_methodologies_and_forecasts_maturing_between_ticks(tmp_path: Path) -> None:
    scenario = _panel_scenario(tmp_path / "unused")
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    _assert_as_fresh(scenario, site, tmp_path / "fresh0", DAILY)
    for step in range(3):  # a plain tick, then one past the last week's scheduled ends
        _tick(scenario, minutes=10 if step != 1 else 3 * 24 * 60)
        _publish(scenario, site, BOARD)
        _assert_as_fresh(scenario, site, tmp_path / f"fresh{step + 1}")


def test_rules_changed_between_publications(tmp_path: Path) -> None:
    scenario = build(tmp_path / "unused", weeks=2, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    _tick(scenario)
    other = Rules(min_forecasts=2, min_cohorts=2, min_weeks=2, min_events=1, alpha=0.1)
    _publish(scenario, site, BOARD, other)
    _assert_as_fresh(scenario, site, tmp_path / "fresh", BOARD, other)
    _tick(scenario)
    _publish(scenario, site, BOARD)  # and back
    _assert_as_fresh(scenario, site, tmp_path / "fresh-back")


def test_forecasts_maturing_weeks_later(tmp_path: Path) -> None:
    """Extra markets resolve at their week's end, some scheduled to end 40 days on: their
    forecasts mature (and change the table and the ranked figures) weeks after being scored."""
    scenario = build(tmp_path / "unused", weeks=2, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    for days in (1, 40, 1):
        _tick(scenario, minutes=days * 24 * 60)
        _publish(scenario, site, BOARD)
        _assert_as_fresh(scenario, site, tmp_path / f"fresh-{days}-{scenario.clock.now():%j}")


@pytest.mark.parametrize("garbage", [b"", b"not gzip", gzip.compress(b"{not json")])
def test_a_carried_file_that_cannot_be_read(tmp_path: Path, garbage: bytes) -> None:
    scenario = build(tmp_path / "unused", weeks=2, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    _tick(scenario)
    (state_folder(site) / CARRIED.removeprefix(INTERNAL)).write_bytes(garbage)
    _publish(scenario, site, BOARD)
    _assert_as_fresh(scenario, site, tmp_path / "fresh")


def test_kept_statistics_that_cannot_be_read_are_computed_again(tmp_path: Path) -> None:
    """Every part kept (statistics, table digests, the completed part) read back unreadable
    under its own key: computed again, and the site is what a fresh publication makes."""
    scenario = build(tmp_path / "unused", weeks=2, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    folder = state_folder(site)
    kept_path = folder / KEPT.removeprefix(INTERNAL)
    kept = kept_statistics(kept_path.read_bytes())
    slots = {slot.split("/")[-1] for slot in kept}
    assert {"bets", "returns", "completed", "pairwise"} <= slots
    garbage = {
        "bets": '{"board": "[]", "counts": {}}',
        "returns": '{"figures": {}, "pairs": 3}',
        "completed": '{"until": 5}',
        "forecasts.csv": "not digests",
    }
    for slot, (key, _) in kept.items():  # each read back under its own key
        kept[slot] = (key, garbage.get(slot.split("/")[-1], "x y"))
    body = kept_body(7, kept)
    kept_path.write_bytes(body)
    path = folder / CARRIED.removeprefix(INTERNAL)
    state = json.loads(gzip.decompress(path.read_bytes()))
    state["kept"] = digest(body)  # named by the state: read, and found unreadable
    path.write_bytes(gzip.compress(json.dumps(state).encode()))
    for tick in range(2):  # and not only the next tick: never read again
        _tick(scenario)
        _publish(scenario, site, BOARD)
        _assert_as_fresh(scenario, site, tmp_path / f"fresh{tick}")


@pytest.mark.parametrize("after", [-1, 1, 2, 5])
def test_a_publication_that_fails_half_way_as_a_cohort_completes(
    tmp_path: Path, after: int
) -> None:
    """The carried state (under ``_internal/``) sorted before every file of ``data/``: a
    publication failing after it was written and before ``data/position_returns.json`` was
    left a carried state naming the completed cohort's positions as read, and they were never
    published. The publishers now write the bookkeeping last (``upload_order``)."""
    scenario = build(tmp_path / "unused", weeks=1, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    _resolve_everything(scenario)
    (cohort,) = scenario.stores.cohorts.cohorts()
    assert cohort.status is CohortStatus.COMPLETED
    _tick(scenario)
    if after >= 0:
        with pytest.raises(PersistenceError):
            _publish(scenario, site, BOARD, after=after)
    for tick in range(2):  # and not only the next tick: never read again
        _tick(scenario)
        _publish(scenario, site, BOARD)
        _assert_as_fresh(scenario, site, tmp_path / f"fresh{tick}")


def test_arena_analyze_on_a_ticked_site_writes_its_statistics_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The statistics a tick shows come from kept statistics; ``arena analyze`` computes them
    from the published tables afresh: the same bytes, both methodologies, after maturing."""
    scenario = _panel_scenario(tmp_path / "unused")
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    for minutes in (10, 3 * 24 * 60, 10):
        _tick(scenario, minutes)
        _publish(scenario, site, BOARD)
        out = tmp_path / f"analysed-{minutes}"
        assert main(["analyze", str(site / "data"), "--json", str(out)]) == 0
        for name in ("leaderboard.json", "panel_leaderboard.json", "pairwise.json"):
            assert (out / name).read_bytes() == (site / "data" / name).read_bytes(), name
    capsys.readouterr()
