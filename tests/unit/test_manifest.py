"""The change-only writer (``adapters/manifest.py``): a tick reads and writes the root (its lease,
the manifest's index and the files every tick changes) and the files it changed, not the whole
site's list; a part that cannot be read only makes its files be published again; one
publication writes at a time; what was changed out of band is repaired."""

from __future__ import annotations

import gzip
import json
from datetime import timedelta

import pytest

from arena_core.adapters.manifest import (
    HOT,
    PARTS,
    ROOT,
    ManifestPublisher,
    part_key,
    part_of,
)
from arena_core.errors import InvalidIdError, PublicationBusyError
from arena_core.ports.publisher import LazyFile
from tests.support.buckets import LEASE, NOW, MemoryBucket, publish

SITE = {
    "index.html": b"home",
    "data/leaderboard.csv": b"board",
    "data/live/c1.json": b"live",
    "static/style.css": b"css",
    "cohorts/c1/index.html": b"cohort",
    "cohorts/c2/index.html": b"cohort 2",
    "decisions/d1.html": b"decision",
    "data/cohorts/c1/trades.csv": b"trades",
    "data/universes/2026-03-01.csv": b"universe",
}
TICK = {"index.html": b"home, later", "data/leaderboard.csv": b"board, later"}


@pytest.mark.parametrize(
    ("path", "part"),
    [
        ("index.html", HOT),
        ("data/leaderboard.json", HOT),
        ("data/live/c2026-03-01.json", HOT),
        ("static/app.js", HOT),
        ("cohorts/c1/agents/a.html", "cohorts"),
        ("decisions/d1.prompt.txt", "decisions"),
        ("markets/m1.html", "markets"),
        ("data/cohorts/c1/trades.csv", "data/cohorts"),
        ("data/universes/2026-03-01/universe.csv", "data/universes"),
    ],
)
def test_a_tick_s_folders_share_one_part_and_the_rest_go_by_folder(path: str, part: str) -> None:
    assert part_of(path) == part


def test_a_tick_reads_and_writes_the_root_and_the_files_it_changes() -> None:
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    first = publish(publisher, SITE)
    assert set(first.uploaded) == set(SITE)
    parts = {part_of(path) for path in SITE} - {HOT}
    assert {w for w in bucket.writes if w.startswith(PARTS)} == {part_key(p) for p in parts}
    files = [w for w in bucket.writes if w in SITE]
    assert bucket.writes == [ROOT, *files, *sorted(part_key(p) for p in parts), ROOT]
    bucket.forget()
    report = publish(publisher, TICK)
    assert report.uploaded == tuple(sorted(TICK))
    assert bucket.reads == [ROOT]  # the hot part is in the root
    assert bucket.writes == [ROOT, *sorted(TICK), ROOT]  # the lease taken, then released


def test_what_is_unchanged_is_not_written_and_a_lookup_reads_one_part() -> None:
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    publish(publisher, SITE)
    bucket.forget()
    assert publish(publisher, SITE).uploaded == ()
    assert bucket.writes == [ROOT, ROOT]  # no file, and no part written again
    bucket.forget()
    session = publisher.open("reader", NOW, LEASE)
    assert session.known("decisions/d1.html") is not None
    assert session.known("decisions/d2.html") is None
    assert bucket.reads == [ROOT, part_key("decisions")]
    assert session.known("markets/m9.html") is None  # a part that does not exist is not read
    assert bucket.reads == [ROOT, part_key("decisions")]
    session.release()


@pytest.mark.parametrize(
    "garbage",
    [b"{not json", json.dumps({"cohorts/c1/index.html": 5}).encode(), b"[" * 100_000],
    ids=["not-json", "not-entries", "nested-deep"],
)
def test_a_part_that_cannot_be_read_only_publishes_its_files_again(garbage: bytes) -> None:
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    publish(publisher, SITE)
    bucket.objects[part_key("cohorts")] = garbage
    report = publish(publisher, SITE)
    assert set(report.uploaded) == {"cohorts/c1/index.html", "cohorts/c2/index.html"}
    assert publish(publisher, SITE).uploaded == ()  # recorded again


@pytest.mark.parametrize(
    "garbage", [b"not a header\nstate", b"[" * 100_000 + b"\n", b'{"format": 1}\nstate']
)
def test_a_root_that_cannot_be_read_publishes_everything_again(garbage: bytes) -> None:
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    publish(publisher, SITE, state=b"the state")
    bucket.objects[ROOT] = garbage
    session = publisher.open("next", NOW, LEASE)
    assert session.opened.state is None and session.opened.notes
    assert set(session.publish([LazyFile.of(p, b) for p, b in SITE.items()]).uploaded) == set(SITE)
    session.commit(b"anew")
    assert publisher.open("after", NOW, LEASE).opened.state == b"anew"


def test_the_state_is_read_at_opening_and_written_at_commit() -> None:
    publisher = ManifestPublisher(MemoryBucket())
    first = publisher.open("first", NOW, LEASE)
    assert first.opened.state is None
    first.release()
    publish(publisher, {}, state=b"\x1f binary\nstate with lines")
    assert publisher.open("second", NOW, LEASE).opened.state == b"\x1f binary\nstate with lines"


@pytest.mark.parametrize("key", ["../escape.html", part_key(HOT), ROOT, f"{PARTS}x.json"])
def test_every_key_is_checked_before_the_first_is_written(key: str) -> None:
    """Nor may a file take the place of the manifest's own objects."""
    bucket = MemoryBucket()
    session = ManifestPublisher(bucket).open("test", NOW, LEASE)
    bucket.forget()
    with pytest.raises(InvalidIdError):
        session.publish([LazyFile.of("a.html", b"a"), LazyFile.of(key, b"b")])
    assert bucket.writes == []


def test_bookkeeping_is_written_as_given_and_never_recorded() -> None:
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    for _ in range(2):
        assert publish(publisher, {"_internal/state/x.gz": b"x"}).uploaded == (
            "_internal/state/x.gz",
        )
    assert bucket.objects["_internal/state/x.gz"] == b"x"


def test_one_publication_holds_the_lease_until_it_commits() -> None:
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    first = publisher.open("tick", NOW, LEASE)
    with pytest.raises(PublicationBusyError, match="tick"):
        publisher.open("weekly", NOW + timedelta(minutes=1), LEASE)
    first.publish([LazyFile.of("index.html", b"home")])
    first.commit(b"")
    second = publisher.open("weekly", NOW + timedelta(minutes=1), LEASE)
    assert second.opened.taken_over is None
    second.release()
    publisher.open("later", NOW + timedelta(minutes=2), LEASE).release()


def test_an_expired_lease_is_taken_over_and_its_holder_records_nothing() -> None:
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    crashed = publisher.open("crashed", NOW, LEASE)
    crashed.publish([LazyFile.of("index.html", b"old figures")])
    later = publisher.open("next", NOW + LEASE, LEASE)
    assert later.opened.taken_over == "crashed"
    later.publish([LazyFile.of("index.html", b"new figures")])
    later.commit(b"next's")
    with pytest.raises(PublicationBusyError):
        crashed.commit(b"crashed's")  # its state is never recorded
    assert publisher.open("after", NOW + LEASE, LEASE).opened.state == b"next's"


def test_two_publications_opening_at_once_cannot_both_hold_the_lease() -> None:
    """The second read the root before the first wrote its lease: its conditional write loses."""
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    publish(publisher, SITE)
    original = bucket.get

    def racing(key: str) -> tuple[bytes, str] | None:
        found = original(key)
        if key == ROOT and bucket.get is racing:
            bucket.get = original  # type: ignore[method-assign]
            publisher.open("first", NOW, LEASE)  # wins between the read and the write
        return found

    bucket.get = racing  # type: ignore[method-assign]
    with pytest.raises(PublicationBusyError):
        publisher.open("second", NOW, LEASE)


def test_a_repairing_publication_rewrites_what_changed_out_of_band() -> None:
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    publish(publisher, SITE)
    bucket.objects["cohorts/c1/index.html"] = b"edited out of band"
    del bucket.objects["decisions/d1.html"]
    bucket.objects["data/leaderboard.csv"] = gzip.compress(b"cut")
    assert publish(publisher, SITE).uploaded == ()  # trusted until checked
    report = publish(publisher, SITE, repair=True)
    damaged = ("cohorts/c1/index.html", "data/leaderboard.csv", "decisions/d1.html")
    assert report.repaired == damaged and report.uploaded == damaged
    assert report.checked == len(SITE)
    assert all(bucket.objects[p] == SITE[p] for p in SITE)


def test_a_kept_file_is_written_only_where_the_site_lacks_it() -> None:
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    made: list[str] = []

    def body() -> bytes:
        made.append("body")
        return b"sealed page"

    kept = LazyFile("cohorts/c9/index.html", body, kept=True)
    assert publish(publisher, [kept]).uploaded == ("cohorts/c9/index.html",)
    assert publish(publisher, [kept]).uploaded == () and made == ["body"]
    assert publish(publisher, [kept], repair=True).uploaded == () and made == ["body"]
    del bucket.objects["cohorts/c9/index.html"]
    assert publish(publisher, [kept], repair=True).repaired == ("cohorts/c9/index.html",)


def test_a_session_opened_without_holding_reads_the_root_and_writes_nothing() -> None:
    """A tick plans before it holds: one that finds nothing due releases having written
    nothing, and the lease is free for the next publication."""
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    publish(publisher, SITE, state=b"last")
    bucket.forget()
    looking = publisher.open("tick", NOW, LEASE, hold=False)
    assert looking.opened.state == b"last"
    looking.release()
    assert bucket.reads == [ROOT] and bucket.writes == []
    publisher.open("next", NOW, LEASE).release()  # nobody holds it


def test_a_session_holds_at_its_first_write_or_when_asked() -> None:
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    late = publisher.open("tick", NOW, LEASE, hold=False)
    late.publish([LazyFile.of("index.html", b"home")])  # writes under the lease
    assert bucket.writes[0] == ROOT
    with pytest.raises(PublicationBusyError, match="tick"):
        publisher.open("weekly", NOW, LEASE)
    late.commit(b"tick's")
    asked = publisher.open("hourly", NOW, LEASE, hold=False)
    asked.hold()
    asked.hold()  # held already: nothing more is written
    assert bucket.writes.count(ROOT) == 3
    with pytest.raises(PublicationBusyError, match="hourly"):
        publisher.open("weekly", NOW, LEASE)


def test_a_session_that_holds_late_loses_to_one_that_took_the_lease_since_it_read() -> None:
    bucket = MemoryBucket()
    publisher = ManifestPublisher(bucket)
    publish(publisher, SITE, state=b"before")
    tick = publisher.open("tick", NOW, LEASE, hold=False)
    weekly = publisher.open("weekly", NOW, LEASE)  # the root changed after the tick read it
    with pytest.raises(PublicationBusyError):
        tick.hold()
    with pytest.raises(PublicationBusyError):
        tick.publish([LazyFile.of("index.html", b"stale figures")])
    tick.release()  # never held: gives up nothing of the weekly's
    weekly.publish([LazyFile.of("index.html", b"weekly figures")])
    weekly.commit(b"weekly's")
    assert bucket.objects["index.html"] == b"weekly figures"
    assert publisher.open("after", NOW, LEASE).opened.state == b"weekly's"
