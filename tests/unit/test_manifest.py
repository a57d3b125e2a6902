"""The published files' manifest in parts (``ports/manifest.py``): a tick reads and writes the
part it changes, not the whole site's list; a site published with one manifest is split once;
a part that cannot be read only makes its files be published again."""

from __future__ import annotations

import json

import pytest

from arena_core.errors import InvalidIdError
from arena_core.ports.manifest import (
    HOT,
    INDEX,
    LEGACY_MANIFEST,
    MANIFEST,
    PARTS,
    Manifest,
    ManifestPublisher,
    part_key,
    part_of,
    upload_order,
)
from arena_core.ports.publisher import digest

SITE = {
    "index.html": b"home",
    "data/leaderboard.csv": b"board",
    "data/live/c1.json": b"live",
    "_internal/carried/leaderboard.json.gz": b"carried",
    "static/style.css": b"css",
    "cohorts/c1/index.html": b"cohort",
    "cohorts/c2/index.html": b"cohort 2",
    "decisions/d1.html": b"decision",
    "data/cohorts/c1/trades.csv": b"trades",
    "data/universes/2026-03-01/universe.csv": b"universe",
    "_internal/cohorts/c1/completed": b"final\n",
}
TICK = {"index.html": b"home, later", "_internal/carried/leaderboard.json.gz": b"carried 2"}


class MemoryPublisher(ManifestPublisher):
    """Objects in a dict, every read and write recorded."""

    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}
        self.reads: list[str] = []
        self.writes: list[str] = []

    def put(self, path: str, body: bytes) -> None:
        self.writes.append(path)
        self.objects[path] = body

    def read(self, path: str) -> bytes | None:
        self.reads.append(path)
        return self.objects.get(path)

    def forget(self) -> None:
        self.reads.clear()
        self.writes.clear()


@pytest.mark.parametrize(
    ("path", "part"),
    [
        ("index.html", HOT),
        ("data/leaderboard.json", HOT),
        ("data/live/c2026-03-01.json", HOT),
        ("_internal/carried/kept.json.gz", HOT),
        ("static/app.js", HOT),
        ("cohorts/c1/agents/a.html", "cohorts"),
        ("decisions/d1.prompt.txt", "decisions"),
        ("markets/m1.html", "markets"),
        ("data/cohorts/c1/trades.csv", "data/cohorts"),
        ("data/universes/2026-03-01/universe.csv", "data/universes"),
        ("_internal/cohorts/c1/completed", "_internal/cohorts"),
    ],
)
def test_a_tick_s_folders_share_one_part_and_the_rest_go_by_folder(path: str, part: str) -> None:
    assert part_of(path) == part


def test_a_tick_reads_and_writes_only_the_part_it_changes() -> None:
    publisher = MemoryPublisher()
    first = publisher.publish(SITE)
    assert set(first.uploaded) == set(SITE)
    manifest_objects = {w for w in publisher.writes if w.startswith(PARTS)}
    parts = {part_of(path) for path in SITE}
    assert manifest_objects == {part_key(p) for p in parts} | {INDEX}
    assert publisher.writes[: len(SITE)] == upload_order(SITE)  # the files first
    publisher.forget()
    report = publisher.publish(TICK)
    assert set(report.uploaded) == set(TICK)
    assert publisher.reads == [INDEX, part_key(HOT)]
    assert publisher.writes == [*upload_order(TICK), part_key(HOT)]
    # And the whole site's list is what was published, from any publisher reading it
    listed = dict(publisher.published())
    assert listed == {path: digest(body) for path, body in {**SITE, **TICK}.items()}
    assert len(publisher.published()) == len(SITE)


def test_what_is_unchanged_is_not_written_and_a_lookup_reads_one_part() -> None:
    publisher = MemoryPublisher()
    publisher.publish(SITE)
    publisher.forget()
    assert publisher.publish(SITE).uploaded == ()
    assert publisher.writes == []  # no file, and no part written again
    publisher.forget()
    manifest = publisher.published()
    assert "decisions/d1.html" in manifest and "decisions/d2.html" not in manifest
    assert publisher.reads == [INDEX, part_key("decisions")]
    assert "markets/m9.html" not in manifest  # a part that does not exist is not read
    assert publisher.reads == [INDEX, part_key("decisions")]


@pytest.mark.parametrize("before", [MANIFEST, LEGACY_MANIFEST])
def test_a_site_published_with_one_manifest_is_split_once(before: str) -> None:
    publisher = MemoryPublisher()
    publisher.objects[before] = json.dumps({p: digest(b) for p, b in SITE.items()}).encode()
    assert dict(publisher.published()) == {p: digest(b) for p, b in SITE.items()}
    report = publisher.publish(TICK)
    assert set(report.uploaded) == set(TICK)  # the rest is known as published
    parts = {part_key(part_of(path)) for path in SITE}
    assert {w for w in publisher.writes if w.startswith(PARTS)} == parts | {INDEX}
    publisher.forget()
    publisher.publish({"index.html": b"home, later still"})
    assert publisher.reads == [INDEX, part_key(HOT)]  # read in parts from now on
    assert publisher.writes == ["index.html", part_key(HOT)]


def test_a_part_that_cannot_be_read_only_publishes_its_files_again() -> None:
    publisher = MemoryPublisher()
    publisher.publish(SITE)
    publisher.objects[part_key("decisions")] = b"{not json"
    publisher.objects[part_key("cohorts")] = json.dumps({"cohorts/c1/index.html": 5}).encode()
    report = publisher.publish(SITE)
    again = {"decisions/d1.html", "cohorts/c1/index.html", "cohorts/c2/index.html"}
    assert set(report.uploaded) == again
    assert publisher.published()["decisions/d1.html"] == digest(SITE["decisions/d1.html"])
    publisher.objects[INDEX] = b'"not a list"'  # an index that cannot be read: no part known
    assert set(publisher.publish(SITE).uploaded) == set(SITE)


def test_a_manifest_kept_as_a_plain_mapping_is_written_whole() -> None:
    publisher = MemoryPublisher()
    publisher.publish(SITE)
    known = dict(publisher.published())
    publisher.forget()
    publisher.publish(TICK, known=known)
    assert publisher.reads == []  # what the caller read is not read again
    parts = {part_key(part_of(path)) for path in SITE}
    assert {w for w in publisher.writes if w.startswith(PARTS)} == parts | {INDEX}
    assert dict(Manifest(publisher.read)) == {**known, **{p: digest(b) for p, b in TICK.items()}}


@pytest.mark.parametrize("key", ["../escape.html", part_key(HOT), INDEX, MANIFEST, LEGACY_MANIFEST])
def test_every_key_is_checked_before_the_first_is_written(key: str) -> None:
    """Nor may a file take the place of the manifest's own objects."""
    publisher = MemoryPublisher()
    with pytest.raises(InvalidIdError):
        publisher.publish({"a.html": b"a", key: b"b"})
    assert publisher.writes == []
