"""Site generation: pages and exports, incremental publishing, and the export round trip."""

import csv
import gzip
import html
import io
import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import boto3
import pytest

from arena_core.adapters.manifest import ROOT
from arena_core.adapters.site_publishers import (
    LocalFolderPublisher,
    S3SitePublisher,
    state_folder,
)
from arena_core.dataset.cohort_tables import PANEL_COHORT_TABLES
from arena_core.dataset.exports import TABLES
from arena_core.dataset.package import SITE_TABLES
from arena_core.dataset.tables import GLOBAL_TABLES
from arena_core.domain.lineup import default_lineup
from arena_core.domain.releases import LineupRelease
from arena_core.domain.rules import MAX_BET_FRACTION, STARTING_BALANCE
from arena_core.errors import PublicationBusyError
from arena_core.ports.publisher import INTERNAL, LazyFile, PublishReport, PublishSession, digest
from arena_core.ports.stores import ViewStore
from arena_core.services.publish_site import (
    BOARD,
    DAILY,
    FULL,
    LIVE,
    WEEKLY,
    PublishSiteService,
    Scope,
)
from arena_core.services.resolution import ResolutionService
from tests.support.aws import embedded_aws
from tests.support.buckets import LEASE, NOW, publish
from tests.support.builders import WEEK0
from tests.support.html_tables import table as html_table
from tests.support.scenario import HOSTILE_REASONING, build


def read_csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


def test_every_page_and_export_is_written(tmp_path: Path) -> None:
    scenario = build(tmp_path, weeks=1)
    report = scenario.publish()
    cohort = scenario.stores.cohorts.cohorts()[0].cohort_id
    for path in [
        "index.html",
        "methodology.html",
        "data/index.html",
        *(f"data/{table}.{kind}" for table in GLOBAL_TABLES for kind in ("csv", "json")),
        "pairwise.html",
        "data/cohorts.json",
        "models/gpt-5.1.html",
        f"cohorts/{cohort}/index.html",
        f"cohorts/{cohort}/{cohort}.gpt-5.1.html",
        "static/app.js",
        "static/style.css",
    ]:
        assert (tmp_path / path).is_file(), path
    for table in (
        "agents",
        "decisions",
        "trades",
        "positions",
        "settlements",
        "bet_scores",
        "snapshots",
    ):
        assert (tmp_path / f"data/cohorts/{cohort}/{table}.csv").is_file()
        assert (tmp_path / f"data/cohorts/{cohort}/{table}.json").is_file()
    assert report.uploaded == report.files


def test_the_home_page_stays_under_50_kb_gzipped(tmp_path: Path) -> None:
    """Issue 28 §6 (its size at 52 weeks is printed by bench/bench_site.py)."""
    build(tmp_path, weeks=3).publish()
    home = (tmp_path / "index.html").read_bytes()
    assert len(gzip.compress(home)) < 50_000


def test_untrusted_text_is_escaped_in_html(tmp_path: Path) -> None:
    scenario = build(tmp_path, weeks=1)
    scenario.publish()
    cohort = scenario.stores.cohorts.cohorts()[0].cohort_id
    html = (tmp_path / f"cohorts/{cohort}/{cohort}.gpt-5.1.html").read_text()
    assert HOSTILE_REASONING not in html
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in html
    assert "<img src=x" not in html
    assert "<script>" not in html.replace('<script src="../../static/app.js" defer></script>', "")


def test_only_changed_objects_are_uploaded_and_completed_cohorts_are_left_alone(
    tmp_path: Path,
) -> None:
    scenario = build(tmp_path, weeks=1)
    first = scenario.publish()
    again = scenario.publish()
    assert again.uploaded == 0
    assert again.cohorts_rendered == first.cohorts_rendered
    for market in scenario.source.markets.values():  # resolve what is left, so the cohort ends
        from arena_core.domain.market import MarketStatus, ResolutionKind  # noqa: PLC0415
        from tests.support.builders import resolved  # noqa: PLC0415

        if market.status is MarketStatus.OPEN:
            scenario.source.set(resolved(market, ResolutionKind.WINNER, market.sides[0]))
    completed = ResolutionService(scenario.stores, scenario.source, scenario.clock).run()
    assert completed.completed_cohorts == first.cohorts_rendered
    final = scenario.publish()
    assert final.cohorts_rendered == first.cohorts_rendered  # rendered once more, as completed
    assert scenario.publish().cohorts_rendered == ()  # then never again


def test_s3_publisher_sets_content_types_cache_headers_and_skips_unchanged() -> None:
    with embedded_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="site")
        publisher = S3SitePublisher(s3, "site")
        files = {"index.html": b"<h1>x</h1>", "data/a.csv": b"a\n1\n", "static/app.js": b"1;"}
        assert publish(publisher, files).uploaded == ("data/a.csv", "index.html", "static/app.js")
        head = s3.head_object(Bucket="site", Key="index.html")
        assert head["ContentType"] == "text/html; charset=utf-8"
        assert "max-age=60" in head["CacheControl"]
        assert (
            s3.head_object(Bucket="site", Key="data/a.csv")["ContentType"]
            == "text/csv; charset=utf-8"
        )
        assert (
            s3.head_object(Bucket="site", Key="static/app.js")["CacheControl"]
            == "public, max-age=3600"
        )
        report = publish(publisher, {**files, "index.html": b"<h1>y</h1>"})
        assert report.uploaded == ("index.html",)
        assert report.unchanged == 2
        # The root holds the lease, the hot part of the manifest and the state
        head_line = s3.get_object(Bucket="site", Key=ROOT)["Body"].read().split(b"\n")[0]
        assert json.loads(head_line)["hot"]["index.html"][0] == digest(b"<h1>y</h1>")
        assert json.loads(head_line)["lease"] is None


def test_s3_publisher_takes_the_lease_with_a_conditional_write_and_repairs() -> None:
    """On S3 (moto honours ``If-Match`` and ``If-None-Match``): a second publication finds the
    lease held; a file edited or removed out of band is found by the listing and rewritten."""
    with embedded_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="site")
        publisher = S3SitePublisher(s3, "site")
        files = {"index.html": b"<h1>x</h1>", "data/a.csv": b"a\n1\n"}
        publish(publisher, files)
        held = publisher.open("tick", NOW, LEASE)
        with pytest.raises(PublicationBusyError):
            publisher.open("weekly", NOW, LEASE)
        held.release()
        s3.put_object(Bucket="site", Key="data/a.csv", Body=b"edited")
        s3.delete_object(Bucket="site", Key="index.html")
        report = publish(publisher, files, repair=True)
        assert report.repaired == ("data/a.csv", "index.html")
        assert s3.get_object(Bucket="site", Key="data/a.csv")["Body"].read() == files["data/a.csv"]


def test_local_publisher_writes_the_site_and_its_bookkeeping_beside_it(tmp_path: Path) -> None:
    site = tmp_path / "site"
    publisher = LocalFolderPublisher(site)
    publish(publisher, {"a/b.html": b"1"}, state=b"state")
    assert (site / "a/b.html").read_bytes() == b"1"
    assert [p.name for p in site.iterdir()] == ["a"]  # nothing but the readers' files
    assert (state_folder(site) / ROOT.removeprefix(INTERNAL)).is_file()
    opened = LocalFolderPublisher(site).open("next", NOW, LEASE)
    assert opened.opened.state == b"state"
    opened.release()
    assert publish(publisher, {"a/b.html": b"1"}).uploaded == ()
    assert publish(publisher, {"a/b.html": b"2"}).uploaded == ("a/b.html",)


def test_exports_round_trip_recomputes_brier_pnl_and_return(tmp_path: Path) -> None:
    scenario = build(tmp_path, weeks=2)
    scenario.publish()
    data = tmp_path / "data"
    leaderboard = {r["family_id"]: r for r in read_csv(data / "leaderboard.csv")}
    briers: dict[str, list[Decimal]] = defaultdict(list)
    returns: dict[str, list[Decimal]] = defaultdict(list)
    pnls: dict[str, Decimal] = defaultdict(Decimal)
    for cohort in json.loads((data / "cohorts.json").read_text()):
        folder = data / "cohorts" / cohort["cohort_id"]
        trades, settlements = read_csv(folder / "trades.csv"), read_csv(folder / "settlements.csv")
        positions = read_csv(folder / "positions.csv")
        for score in read_csv(folder / "bet_scores.csv"):
            forecast = Decimal(score["amount"]) / (Decimal(score["cash_before"]) * MAX_BET_FRACTION)
            won = Decimal(1) if score["won"] == "true" else Decimal(0)
            assert forecast.quantize(Decimal("1e-12")) == Decimal(score["forecast"])
            briers[score["family_id"]].append((forecast - won) ** 2)
        for agent in read_csv(folder / "agents.csv"):
            mine = agent["agent_id"]
            cash = STARTING_BALANCE
            for t in trades:
                if t["agent_id"] == mine:
                    cash += -Decimal(t["amount"]) if t["kind"] == "buy" else Decimal(t["amount"])
            cash += sum(
                (Decimal(s["payout"]) for s in settlements if s["agent_id"] == mine), Decimal(0)
            )
            assert cash == Decimal(agent["cash"])
            value = sum(
                (
                    Decimal(p["marked_value"])
                    for p in positions
                    if p["agent_id"] == mine and p["status"] == "open"
                ),
                Decimal(0),
            )
            total = cash + value.quantize(Decimal("0.01"), rounding="ROUND_HALF_EVEN")
            assert total == Decimal(agent["total_value"])
            pnl = total - STARTING_BALANCE
            assert pnl == Decimal(agent["total_pnl"])
            assert pnl / STARTING_BALANCE * 100 == Decimal(agent["total_pnl_pct"])
            returns[agent["family_id"]].append(pnl / STARTING_BALANCE * 100)
            pnls[agent["family_id"]] += pnl
    for family, row in leaderboard.items():
        if row["kind"] == "market":
            continue  # the market's reference row: recomputed in test_statistics_from_exports
        assert Decimal(row["total_pnl"]) == pnls[family]
        mean_return = sum(returns[family], Decimal(0)) / len(returns[family])
        # Computed statistics are exported to six places; the inputs they come from are exact.
        assert float(row["provisional_return"]) == round(float(mean_return), 6)
        if briers[family]:
            mean_brier = sum(briers[family], Decimal(0)) / len(briers[family])
            assert float(row["brier"]) == round(float(mean_brier), 6)
        else:
            assert row["brier"] == ""


def test_schema_page_documents_every_exported_column(tmp_path: Path) -> None:
    scenario = build(tmp_path, weeks=1)
    scenario.publish()
    page = (tmp_path / "data/index.html").read_text()
    cohort = scenario.stores.cohorts.cohorts()[0].cohort_id
    week = scenario.stores.cohorts.cohorts()[0].week_start.date().isoformat()
    for table, (_, columns) in TABLES.items():
        folder = tmp_path / f"data/cohorts/{cohort}"
        name = table
        if table in GLOBAL_TABLES + SITE_TABLES:
            folder = tmp_path / "data"
        elif table == "universe":
            folder, name = tmp_path / "data/universes", week
        if table in PANEL_COHORT_TABLES:  # a v1 cohort has no panel (test_panel_site: v1+panel)
            assert not (folder / f"{table}.csv").exists()
            continue
        header = (folder / f"{name}.csv").read_text().splitlines()[0].split(",")
        assert header == [c for c, _ in columns]
        for column in header:
            assert f"<code>{column}</code>" in page


class WindowRecorder:
    """The scenario's snapshot reads (its view store), recording the windows of raw reads."""

    def __init__(self, views: ViewStore) -> None:
        self._views = views
        self.raw_windows: list[tuple[datetime, datetime]] = []

    def snapshots(self, agent_id: str, start: datetime, end: datetime) -> Any:
        self.raw_windows.append((start, end))
        return self._views.snapshots(agent_id, start, end)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._views, name)


def test_agent_pages_read_one_day_of_passes_and_hourly_snapshots_before(tmp_path: Path) -> None:
    scenario = build(tmp_path, weeks=1, snapshots_per_week=24 * 6 * 3)  # three days of passes
    recorder = WindowRecorder(scenario.stores.views)
    now = scenario.clock.now()
    publisher = LocalFolderPublisher(tmp_path)
    stores = replace(scenario.stores, views=cast(ViewStore, recorder))
    PublishSiteService(stores, publisher, scenario.blobs, scenario.clock).run()

    assert recorder.raw_windows
    assert all(start >= now - timedelta(days=1) for start, _ in recorder.raw_windows)
    cohort = scenario.stores.cohorts.cohorts()[0]
    rows = read_csv(tmp_path / f"data/cohorts/{cohort.cohort_id}/snapshots.csv")
    for agent in scenario.stores.cohorts.agents(cohort.cohort_id):
        every = scenario.stores.views.snapshots(agent.agent_id, cohort.week_start, now)
        last_of_hour = {s.taken_at.replace(minute=0, second=0): s for s in every}
        exported = [
            datetime.fromisoformat(r["taken_at"]) for r in rows if r["agent_id"] == agent.agent_id
        ]
        assert len(every) > 24 * 6 * 3  # the passes, then the settlement's
        assert exported == [s.taken_at for s in last_of_hour.values()]


def test_each_scope_renders_what_it_names_and_the_home_page_is_the_same_from_any(
    tmp_path: Path,
) -> None:
    scenario = build(tmp_path, weeks=2)
    publisher = LocalFolderPublisher(tmp_path)
    service = PublishSiteService(scenario.stores, publisher, scenario.blobs, scenario.clock)
    first = service.run(BOARD)  # never published: the first publication renders everything
    assert (first.scope, first.why) == ("daily", "never published (asked for board)")
    assert (tmp_path / "data/markets.csv").exists() and (
        state_folder(tmp_path) / ROOT.removeprefix(INTERNAL)
    ).exists()
    live = [c for c in scenario.stores.cohorts.cohorts() if c.status.value == "active"]
    assert live
    home = (tmp_path / "index.html").read_bytes()
    # A tick with nothing new: the leaderboard is regenerated, nothing changed, nothing is
    # computed again (the tables' digests are kept) and nothing written
    tick = service.run(BOARD)
    assert tick.uploaded == 0 and tick.cohorts_rendered == () and tick.misses == ()
    assert {p for p in tick_files(service) if not p.startswith("data/")} == {"index.html"}
    assert (tmp_path / "index.html").read_bytes() == home
    published = {t: (tmp_path / f"data/{t}.csv").read_bytes() for t in GLOBAL_TABLES}
    fresh = tmp_path / "fresh"
    PublishSiteService(
        scenario.stores, LocalFolderPublisher(fresh), scenario.blobs, scenario.clock
    ).run(BOARD)
    assert {t: (fresh / f"data/{t}.csv").read_bytes() for t in GLOBAL_TABLES} == published
    # The live scope adds one JSON of figures per live cohort, nothing else
    assert set(tick_files(service, LIVE)) - set(tick_files(service)) == {
        f"data/live/{c.cohort_id}.json" for c in live
    }
    full = service.run(FULL)
    assert full.cohorts_rendered and (tmp_path / "index.html").read_bytes() == home
    daily = service.run(DAILY)
    assert set(daily.cohorts_rendered) >= {c.cohort_id for c in live}
    weekly = service.run(WEEKLY)
    assert weekly.files > daily.files > full.files and (tmp_path / "data/dataset.zip").exists()


def tick_files(service: PublishSiteService, scope: Scope = BOARD) -> dict[str, bytes]:
    """The readers' files a publication of ``scope`` hands the writer (what it would upload
    if they changed)."""
    rendered: dict[str, bytes] = {}
    publisher = service._publisher
    original = publisher.open

    def opened(owner: str, now: datetime, lease: timedelta, *, hold: bool = True) -> PublishSession:
        session = original(owner, now, lease, hold=hold)
        publish = session.publish

        def recorded(files: Iterable[LazyFile], *, repair: bool = False) -> PublishReport:
            every = list(files)
            rendered.update({f.path: f.body() for f in every if not f.path.startswith(INTERNAL)})
            return publish(every, repair=repair)

        session.publish = recorded  # type: ignore[method-assign]
        return session

    publisher.open = opened  # type: ignore[method-assign]
    try:
        service.run(scope)
    finally:
        publisher.open = original  # type: ignore[method-assign]
    return rendered


def test_the_live_figures_are_the_texts_the_pages_print(tmp_path: Path) -> None:
    """Every ``data-live`` element of a live cohort's pages holds, when both are rendered from
    the same state, the text its cohort's live JSON gives it: the script only swaps text."""
    scenario = build(tmp_path, weeks=1)
    service = PublishSiteService(
        scenario.stores, LocalFolderPublisher(tmp_path), scenario.blobs, scenario.clock
    )
    files = tick_files(service, DAILY)
    (cohort,) = scenario.stores.cohorts.active_cohorts()
    live = json.loads(files[f"data/live/{cohort.cohort_id}.json"])
    checked = 0
    for path, body in files.items():
        if not path.startswith(f"cohorts/{cohort.cohort_id}/"):
            continue
        page = body.decode()
        assert f'content="../../data/live/{cohort.cohort_id}.json"' in page
        for key, text in re.findall(r'data-live="([^"]+)">([^<]*)<', page):
            assert live["values"][key] == html.unescape(text), (path, key)
            checked += 1
        shown = f'data-live-as-of data-at="{live["at"]}">{live["as_of"]}<'
        assert shown in page  # the time the script compares, and the one it prints
    assert checked > 50


def test_model_pages_list_the_releases_and_mark_them_on_the_equity_chart(tmp_path: Path) -> None:
    scenario = build(tmp_path, weeks=2)
    first = default_lineup()
    changed = tuple(
        spec.model_copy(update={"model_id": "deepseek/deepseek-v4"})
        if spec.family_id == "deepseek-v3.1"
        else spec
        for spec in first
    )
    scenario.stores.lineups.add_release(
        LineupRelease(release=1, effective_from=WEEK0, lineup=first)
    )
    halfway = WEEK0 + timedelta(days=9)
    scenario.stores.lineups.add_release(
        LineupRelease(release=2, effective_from=halfway, lineup=changed)
    )
    scenario.publish()
    page = (tmp_path / "models" / "deepseek-v3.1.html").read_text()
    releases = html_table(page, "releases-table")
    assert [row[0] for row in releases.rows] == ["1", "2"]
    assert "deepseek/deepseek-v4" in releases.rows[1][2]
    assert "release 2: deepseek/deepseek-v4" in page  # marked on the chart's time axis
    other = html_table((tmp_path / "models" / "grok-4.html").read_text(), "releases-table")
    assert [row[0] for row in other.rows] == ["1"]  # grok did not change in release 2
