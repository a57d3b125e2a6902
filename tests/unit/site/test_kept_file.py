"""A memo shard's bytes (``publication/memo.py``: ``shard_body``, ``read_shard``): every text
read back as written, whatever it holds, and a shard that is not one read as nothing kept."""

from __future__ import annotations

import json

import pytest

from arena_core.publication.memo import Entry, read_shard, shard_body

ENTRIES = {
    "board/v1/bets": Entry("bets", "c", "k1", "-", '{"board": {"a": [1.5, "x\\ny"]}}'),
    "board/v1/completed": Entry(
        "completed", "c", "k2", "2026-06-04T00:00:00+00:00", 'line one\nline two, naïve \u2028 "q"'
    ),
    "board/tables/pairwise": Entry("digests", "c", "k3", "-", '["' + "a" * 64 + '"]'),
    "board/empty": Entry("files", "c", "k4", "-", ""),
}


def test_every_text_reads_back_as_written() -> None:
    assert read_shard(shard_body(ENTRIES)) == ENTRIES
    assert read_shard(shard_body({})) == {}
    # The same entries are the same bytes (an unchanged shard is not written again)
    assert shard_body(dict(reversed(ENTRIES.items()))) == shard_body(ENTRIES)


def _with(header: object, texts: bytes = b"abc") -> bytes:
    return json.dumps(header).encode() + b"\n" + texts


@pytest.mark.parametrize(
    "body",
    [
        b"no header line",
        _with({"generation": 1}),
        _with([["s", "k", "c", "i", "-", 4]]),  # longer than the texts
        _with([["s", "k", "c", "i", "-", 2]]),  # a text left over
        _with([["s", "k", "c", "i", "-", -1]]),
        _with([["s", "k", 5, "i", "-", 3]]),
        _with([["s", "k", "c", "i", "-", True]]),
        _with([["s", "k", "c", "i", "-"]]),
        _with([["s", "k", "c", "i", "not a time", 3]]),
        _with([["s", "k", "c", "i", "-", 3]], b"\xff\xfe\xfd"),  # not UTF-8
        _with([[[[[[["deep"]]]]]]]),
        b"[" * 100_000 + b"\n",  # nested beyond the decoder's depth
    ],
)
def test_a_shard_that_is_not_one_keeps_nothing(body: bytes) -> None:
    assert read_shard(body) == {}
