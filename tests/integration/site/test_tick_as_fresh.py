"""The oracle of the publication (review 31, issue 35): whatever the state a publication finds,
the site it leaves behind is the one a fresh publication (no state, a new folder) writes for the
same stores and time. Two methodologies, forecasts maturing between ticks, rules changed, a
state or a memo that cannot be read, a publication that fails half-way; a season that ends
without any fault; publications that race; reader files damaged out of band; a manifest part
that cannot be read; an earlier version's bookkeeping; ids that would take an index page's name;
a market's question changed upstream; a state copied from another site."""

from __future__ import annotations

import gzip
import json
import re
import zipfile
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from arena_core.adapters.manifest import (
    PARTS,
    ROOT,
    ManifestPublisher,
    ManifestSession,
    Root,
    part_key,
)
from arena_core.adapters.site_publishers import (
    EARLIER_ROOTS,
    LocalFolderBucket,
    LocalFolderPublisher,
    state_folder,
)
from arena_core.analysis.figures import Rules
from arena_core.dataset.tables import GLOBAL_TABLES
from arena_core.domain.cohort import CohortStatus
from arena_core.domain.market import Market, MarketStatus, ResolutionKind
from arena_core.errors import PersistenceError
from arena_core.ports.publisher import INTERNAL, LazyFile, PublishReport, SitePublisher, digest
from arena_core.publication.memo import read_shard, shard_body
from arena_core.publication.plan import Cadence
from arena_core.publication.state import State, object_key
from arena_core.services.publish_site import BOARD, DAILY, WEEKLY, PublishSiteService, Scope
from arena_core.services.resolution import ResolutionService
from arena_core.services.snapshot import SnapshotService
from arena_local.cli import main
from tests.integration.site.test_panel_site import panel_weeks
from tests.support.builders import resolved
from tests.support.scenario import Scenario, build

LOW = Rules(min_forecasts=4, min_cohorts=1, min_weeks=1, min_events=2)
BUNDLED = ("data/dataset.zip", "data/datapackage.json")  # a weekly publication's alone


class FailingBucket(LocalFolderBucket):
    """Writes the root (the lease) and the first ``after`` files of the publication, in the
    order the writer writes them (readers' files before the bookkeeping), then fails, before
    the root is written again: a publication that fails half-way."""

    def __init__(self, root: Path, after: int) -> None:
        super().__init__(root)
        self._after = after
        self._written = 0

    def put(self, key: str, body: bytes, *, match: str | None = None, absent: bool = False) -> str:
        if key != ROOT or self._written:
            if self._written >= self._after or key == ROOT or key.startswith(PARTS):
                raise PersistenceError("the upload failed half-way")
            self._written += 1
        return super().put(key, body, match=match, absent=absent)


def _service(
    scenario: Scenario,
    site: Path,
    rules: Rules | None = LOW,
    publisher: SitePublisher | None = None,
) -> PublishSiteService:
    publisher = publisher or LocalFolderPublisher(site)
    return PublishSiteService(scenario.stores, publisher, scenario.blobs, scenario.clock, rules)


def _publish(
    scenario: Scenario, site: Path, scope: Scope, rules: Rules | None = LOW, after: int = -1
) -> None:
    publisher = ManifestPublisher(FailingBucket(site, after)) if after >= 0 else None
    service = _service(scenario, site, rules, publisher)
    service.run(scope)


def drawn_by(scope: Scope, path: str) -> bool:
    """Whether a publication of ``scope`` draws ``path`` anew (the narrower scopes keep the
    rest as the last wider one drew it)."""
    if path in BUNDLED:
        return scope is WEEKLY
    if scope.cohort_pages:
        return True
    table = path.startswith("data/") and path.count("/") == 1
    board = path == "index.html" or (table and path[5:].rpartition(".")[0] in GLOBAL_TABLES)
    live = scope.live and path.startswith("data/live/")
    site_wide = scope.site_wide and (
        "/" not in path
        or path.startswith(("models/", "static/", "data/universes/"))
        or path in ("markets/index.html", "cohorts/index.html")
        or table
    )
    return board or live or site_wide


def _files(site: Path, scope: Scope) -> dict[str, bytes]:
    found = {p.relative_to(site).as_posix(): p for p in site.rglob("*") if p.is_file()}
    return {path: file.read_bytes() for path, file in found.items() if drawn_by(scope, path)}


def _assert_as_fresh(
    scenario: Scenario, site: Path, fresh: Path, scope: Scope = BOARD, rules: Rules | None = LOW
) -> None:
    """Every readers' file a fresh publication draws that a publication of ``scope`` draws too
    is in ``site`` as written (and no other such file is)."""
    _publish(scenario, fresh, scope, rules)
    ours, theirs = _files(site, scope), _files(fresh, scope)
    differ = sorted(p for p in {*ours, *theirs} if ours.get(p) != theirs.get(p))
    assert differ == [], differ[:20]


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


def _state(site: Path) -> State:
    root = Root(LocalFolderPublisher(site).get(ROOT))
    return State.load(root.state or None, LocalFolderPublisher(site).identity)[0]


def _rewrite_root(site: Path, state: bytes) -> None:
    """Put ``state`` in the root, its header (the manifest) as it was."""
    path = state_folder(site) / ROOT.removeprefix(INTERNAL)
    header, _, _ = path.read_bytes().partition(b"\n")
    path.write_bytes(header + b"\n" + state)


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


@pytest.mark.parametrize(
    "garbage",
    [b"", b"not gzip", gzip.compress(b"{not json"), b"[" * 100_000],
    ids=["empty", "not-gzip", "not-json", "nested-deep"],
)
def test_a_state_that_cannot_be_read(tmp_path: Path, garbage: bytes) -> None:
    scenario = build(tmp_path / "unused", weeks=2, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    _tick(scenario)
    _rewrite_root(site, garbage)
    _publish(scenario, site, BOARD)
    _assert_as_fresh(scenario, site, tmp_path / "fresh")


def test_kept_values_that_cannot_be_read_are_computed_again(tmp_path: Path) -> None:
    """Every value the memo keeps (statistics, table digests, the sealed part) read back
    unreadable under its own key, in the shard the state links: computed again, and the site
    is what a fresh publication makes."""
    scenario = build(tmp_path / "unused", weeks=2, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    state = _state(site)
    shard_path = state_folder(site) / object_key("memo/board").removeprefix(INTERNAL)
    entries = read_shard(gzip.decompress(shard_path.read_bytes()))
    kinds = {entry.kind for entry in entries.values()}
    assert {"bets", "returns", "completed", "digests", "spend"} <= kinds
    garbage = {"bets": '{"board": "[]"}', "returns": '{"figures": 3}', "completed": '{"until": 5}'}
    broken = {
        address: type(entry)(**{**vars(entry), "text": garbage.get(entry.kind, "x y")})
        for address, entry in entries.items()
    }
    body = gzip.compress(shard_body(broken))
    shard_path.write_bytes(body)
    state.links["memo/board"] = digest(body)  # linked by the state: read, and found unreadable
    _rewrite_root(site, state.dump())
    for tick in range(2):  # and not only the next tick: never read again
        _tick(scenario)
        _publish(scenario, site, BOARD)
        _assert_as_fresh(scenario, site, tmp_path / f"fresh{tick}")


@pytest.mark.parametrize("after", [-1, 1, 2, 5])
def test_a_publication_that_fails_half_way_as_a_cohort_completes(
    tmp_path: Path, after: int
) -> None:
    scenario = build(tmp_path / "unused", weeks=1, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    _resolve_everything(scenario)
    (cohort,) = scenario.stores.cohorts.cohorts()
    assert cohort.status is CohortStatus.COMPLETED
    _tick(scenario)
    if after >= 0:
        with pytest.raises(PersistenceError):
            _publish(scenario, site, DAILY, after=after)
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


# --- issue 35: what the incremental publication got wrong -------------------------------------


def test_a_season_that_ends_without_any_fault(tmp_path: Path) -> None:
    """Every cohort of both methodologies completes and is sealed: the home feed keeps the
    first cohort's decisions, the markets' price charts start where their first cohort opened,
    the model pages are a fresh publication's, and so is every other file (every scope's)."""
    scenario = _panel_scenario(tmp_path / "unused")
    assert {c.status for c in scenario.stores.cohorts.cohorts()} == {CohortStatus.COMPLETED}
    site = tmp_path / "site"
    for scope in (WEEKLY, BOARD, DAILY, BOARD, DAILY, WEEKLY):
        _tick(scenario)
        _publish(scenario, site, scope)
        fresh = tmp_path / f"fresh-{scope.name}-{scenario.clock.now():%H%M}"
        _assert_as_fresh(scenario, site, fresh, scope)
    assert len([n for n in _state(site).links if n.startswith("sealed/")]) == 3
    home = (site / "index.html").read_text()
    first = scenario.stores.cohorts.cohorts()[0].cohort_id
    assert f"cohorts/{first}/index.html" in home  # its decisions in the feed


class Racing(LocalFolderPublisher):
    """A folder publisher whose next publication, once it holds the lease and before it
    writes, lets ``meanwhile`` run (another publication, the world changing)."""

    def __init__(self, root: Path, meanwhile: Callable[[], None]) -> None:
        super().__init__(root)
        self._meanwhile: Callable[[], None] | None = meanwhile

    def open(
        self, owner: str, now: datetime, lease: timedelta, *, hold: bool = True
    ) -> ManifestSession:
        session = super().open(owner, now, lease, hold=hold)
        publish = session.publish

        def delayed(files: Iterable[LazyFile], *, repair: bool = False) -> PublishReport:
            every = list(files)
            if self._meanwhile is not None:
                meanwhile, self._meanwhile = self._meanwhile, None
                meanwhile()
            return publish(every, repair=repair)

        session.publish = delayed  # type: ignore[method-assign]
        return session


def test_an_older_publication_never_lands_after_a_newer_one(tmp_path: Path) -> None:
    """A live publication read the figures before the cohort completed; meanwhile the
    resolution completes it and the weekly publication tries: it finds the lease held and
    publishes nothing, then publishes after the older one (a retry), so the live figures are
    the completed cohort's, as a fresh publication writes them."""
    scenario = build(tmp_path / "unused", weeks=1, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    attempts: list[str] = []

    waited: list[float] = []

    def meanwhile() -> None:
        _resolve_everything(scenario)
        weekly = PublishSiteService(
            scenario.stores, LocalFolderPublisher(site), scenario.blobs, scenario.clock, LOW,
            sleep=waited.append,
        )  # fmt: skip
        attempts.append(weekly.run(WEEKLY).lease)

    _tick(scenario)
    racing = Racing(site, meanwhile)
    older = PublishSiteService(scenario.stores, racing, scenario.blobs, scenario.clock, LOW)
    assert older.run(DAILY).lease == "held"
    assert attempts == ["busy"] and waited == [2.0, 4.0, 8.0, 16.0]  # it waited, then gave up
    assert _service(scenario, site).run(WEEKLY).lease == "held"  # the retry
    _assert_as_fresh(scenario, site, tmp_path / "fresh", WEEKLY)
    (cohort,) = scenario.stores.cohorts.cohorts()
    live = json.loads((site / f"data/live/{cohort.cohort_id}.json").read_bytes())
    fresh = json.loads((tmp_path / f"fresh/data/live/{cohort.cohort_id}.json").read_bytes())
    assert live == fresh


def test_a_lease_left_by_a_publication_that_died_is_taken_over(tmp_path: Path) -> None:
    scenario = build(tmp_path / "unused", weeks=1, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    LocalFolderPublisher(site).open("died", scenario.clock.now(), timedelta(minutes=15))
    _tick(scenario)
    assert _service(scenario, site).run(None).lease == "busy"  # the next tick: nothing
    _tick(scenario)
    report = _service(scenario, site).run(None)  # the lease expired: taken over
    assert report.lease == "held" and report.scope == "board"
    _assert_as_fresh(scenario, site, tmp_path / "fresh")


def test_a_tick_with_nothing_due_writes_nothing_and_one_beaten_to_the_lease_publishes_nothing(
    tmp_path: Path,
) -> None:
    """A tick reads the root and plans before it takes the lease: with nothing due it writes
    nothing at all; when another publication takes the lease between its read and its hold,
    it exits busy and the other's publication stands."""
    scenario = build(tmp_path / "unused", weeks=1, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    root = state_folder(site) / ROOT.removeprefix(INTERNAL)
    before = root.read_bytes()
    wide = Cadence(board=7 * 24 * 60, live=7 * 24 * 60)  # windows wider than the scenario
    idle = PublishSiteService(
        scenario.stores, LocalFolderPublisher(site), scenario.blobs, scenario.clock, LOW,
        cadence=wide,
    )  # fmt: skip
    scenario.clock.set(scenario.clock.now() + timedelta(minutes=25))
    assert idle.run(None).lease == "idle"
    assert root.read_bytes() == before

    class Beaten(LocalFolderPublisher):
        def open(
            self, owner: str, now: datetime, lease: timedelta, *, hold: bool = True
        ) -> ManifestSession:
            session = super().open(owner, now, lease, hold=hold)
            _service(scenario, site).run(WEEKLY)  # takes the lease, publishes, commits
            return session

    _tick(scenario)
    beaten = PublishSiteService(scenario.stores, Beaten(site), scenario.blobs, scenario.clock, LOW)
    assert beaten.run(None).lease == "busy"
    assert Root(root.read_bytes()).lease is None  # the weekly's commit, released
    _assert_as_fresh(scenario, site, tmp_path / "fresh", WEEKLY)


@pytest.mark.parametrize(
    "damage",
    ["cut", "edited", "removed", "older-format"],
)
def test_reader_files_damaged_out_of_band_are_never_read_and_are_repaired(
    tmp_path: Path, damage: str
) -> None:
    """The tables a publication used to read back (positions, markets, costs), a page and the
    dataset's zip, damaged: every publication runs as before and writes what it computes;
    the weekly one rewrites what the bucket holds otherwise."""
    scenario = build(tmp_path / "unused", weeks=2, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, WEEKLY)
    _resolve_everything(scenario)
    _publish(scenario, site, DAILY)
    hit = (
        "data/position_returns.json",
        "data/markets.json",
        "data/costs.json",
        "data/markets.csv",
        "models/grok-4.html",
        "data/dataset.zip",
        f"data/cohorts/{scenario.stores.cohorts.cohorts()[0].cohort_id}/prompts.csv",
    )
    sealed = [c.cohort_id for c in scenario.stores.cohorts.cohorts()[:1]]
    for path in hit:
        target = site / path
        if damage == "cut":
            target.write_bytes(target.read_bytes()[:7])
        elif damage == "edited":
            target.write_bytes(target.read_bytes().replace(b"0", b"1"))
        elif damage == "removed":
            target.unlink()
        else:  # rows of an older or foreign format, extra keys and NaN
            target.write_bytes(b'[{"market_id": "m1", "extra": NaN, "cost_usd": "x"}]')
    for scope in (BOARD, DAILY):
        _tick(scenario)
        assert _service(scenario, site).run(scope).lease == "held"
    _tick(scenario)
    report = _service(scenario, site).run(WEEKLY)
    assert {"data/dataset.zip", "data/costs.json"} <= set(report.repaired)
    assert {f"data/cohorts/{cohort}/prompts.csv" for cohort in sealed} <= set(report.repaired)
    _assert_as_fresh(scenario, site, tmp_path / "fresh", WEEKLY)  # every file as drawn


@pytest.mark.parametrize("garbage", [b"{not json", b"[" * 100_000], ids=["not-json", "nested-deep"])
def test_an_unreadable_manifest_part_keeps_the_dataset_whole(
    tmp_path: Path, garbage: bytes
) -> None:
    """The part listing the cohorts' tables cannot be read: its files are published again, and
    ``dataset.zip`` still holds every cohort's prompts and replies (it is built from what the
    publication computed or sealed, not from the manifest)."""
    scenario = build(tmp_path / "unused", weeks=2, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, WEEKLY)
    _resolve_everything(scenario)
    _publish(scenario, site, DAILY)
    for name in ("data/cohorts", "cohorts", "decisions"):
        (state_folder(site) / part_key(name).removeprefix(INTERNAL)).write_bytes(garbage)
    _tick(scenario)
    _publish(scenario, site, WEEKLY)
    _assert_as_fresh(scenario, site, tmp_path / "fresh", WEEKLY)
    names = zipfile.ZipFile(site / "data/dataset.zip").namelist()
    for cohort in scenario.stores.cohorts.cohorts():
        for table in ("prompts", "replies"):
            assert f"dataset/cohorts/{cohort.cohort_id}/{table}.csv" in names


@pytest.mark.parametrize("earlier", ["root-format", "state-version", "manifest-of-before"])
def test_an_earlier_version_s_bookkeeping(tmp_path: Path, earlier: str) -> None:
    """A root of another format or a state of another version is published anew (and says
    so); the bookkeeping files of before (the manifest in parts, the carried state) are not
    read at all."""
    scenario = build(tmp_path / "unused", weeks=2, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    root = state_folder(site) / ROOT.removeprefix(INTERNAL)
    header, _, payload = root.read_bytes().partition(b"\n")
    if earlier == "root-format":
        root.write_bytes(header.replace(b'"format":2', b'"format":1') + b"\n" + payload)
    elif earlier == "state-version":
        state = _state(site)
        root.write_bytes(header + b"\n" + state.model_copy(update={"version": 4}).dump())
    else:
        for key in EARLIER_ROOTS:
            path = state_folder(site) / key.removeprefix(INTERNAL)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(json.dumps({"index.html": "0" * 64}).encode())
        carried = state_folder(site) / "carried/leaderboard.json.gz"
        carried.parent.mkdir(parents=True, exist_ok=True)
        carried.write_bytes(gzip.compress(b'{"version": 4, "series": {}}'))
    _tick(scenario)
    report = _service(scenario, site).run(DAILY)
    if earlier == "root-format":
        assert report.notes and report.uploaded == report.files  # published anew
    elif earlier == "state-version":
        assert report.notes == ("a state of version 4",)
    _assert_as_fresh(scenario, site, tmp_path / "fresh", DAILY)


def test_a_state_copied_from_another_site_is_not_trusted(tmp_path: Path) -> None:
    other = build(tmp_path / "unused-other", weeks=2, extra=6, rules=LOW)
    _publish(other, tmp_path / "other", DAILY)
    scenario = build(tmp_path / "unused", weeks=1, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    for path in state_folder(tmp_path / "other").rglob("*"):
        if path.is_file():
            target = state_folder(site) / path.relative_to(state_folder(tmp_path / "other"))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    _tick(scenario)
    report = _service(scenario, site).run(DAILY)
    assert "a state written for another site" in report.notes
    _assert_as_fresh(scenario, site, tmp_path / "fresh", DAILY)


def test_a_market_question_changed_upstream_is_shown_by_the_decision_pages(
    tmp_path: Path,
) -> None:
    scenario = build(tmp_path / "unused", weeks=1, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    (market,) = scenario.stores.markets.get_markets(["m1"]).values()
    scenario.stores.markets.save_markets([market.model_copy(update={"question": "Renamed?"})])
    _tick(scenario)
    report = _service(scenario, site).run(DAILY)
    assert any(p.startswith("decisions/") for p in report.paths)
    _assert_as_fresh(scenario, site, tmp_path / "fresh", DAILY)
    pages = [p.read_text() for p in (site / "decisions").glob("*.html")]
    assert any("Renamed?" in page for page in pages)


def test_ids_can_never_take_an_index_page_s_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A family and a market whose id is ``index``: their pages are ``index~.html`` (no id
    holds ``~``), the models and markets pages stay the index pages, and every link to them
    names that file."""
    from tests.support import scenario as scenario_module  # noqa: PLC0415

    lineup = scenario_module.default_lineup()
    renamed = (lineup[1].model_copy(update={"family_id": "index"}), *lineup[:1], *lineup[2:])
    monkeypatch.setattr(scenario_module, "default_lineup", lambda: renamed)
    original = scenario_module.extra_markets

    def with_index(week_start: datetime, count: int) -> list[Market]:
        found = original(week_start, count)
        return [found[0].model_copy(update={"market_id": "index"}), *found[1:]] if found else []

    monkeypatch.setattr(scenario_module, "extra_markets", with_index)
    scenario = build(tmp_path / "unused", weeks=1, extra=6, rules=LOW)
    site = tmp_path / "site"
    _publish(scenario, site, DAILY)
    assert (site / "models/index~.html").is_file() and (site / "markets/index~.html").is_file()
    assert "<h1>Models</h1>" in (site / "models/index.html").read_text()
    assert "<h1>Markets</h1>" in (site / "markets/index.html").read_text()
    pages = [p.read_text() for p in site.rglob("*.html")]
    assert any('models/index~.html"' in page for page in pages)
    assert any('index~.html"' in page and "market" in page for page in pages)
    for page in pages:
        for link in re.findall(r'href="([^"#]+)"', page):
            assert not link.endswith(("models/index.html", "markets/index.html")) or (
                "Models" in page and "Markets" in page
            )
