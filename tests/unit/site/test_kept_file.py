"""The kept file (``site/carried.py``: ``kept_body``, ``kept_statistics``): every text read back
as written, whatever it holds, and a file that is not one read as nothing kept."""

from __future__ import annotations

import gzip
import json

import pytest

from arena_core.publication.carried import kept_body, kept_statistics

STATISTICS = {
    "v1/bets": ("k1", '{"board": {"a": [1.5, "x\\ny"]}, "counts": {}}'),
    "v1/completed": ("k2", 'line one\nline two, naïve \u2028 "quoted"'),
    "tables/pairwise": ("k3", "a" * 64 + " " + "b" * 64),
    "v1/empty": ("k4", ""),
}


def test_every_text_reads_back_as_written() -> None:
    assert kept_statistics(kept_body(3, STATISTICS)) == STATISTICS
    assert kept_statistics(kept_body(1, {})) == {}
    # The same statistics are the same bytes (an unchanged file is not uploaded again)
    assert kept_body(3, dict(reversed(STATISTICS.items()))) == kept_body(3, STATISTICS)


def _with(header: object, texts: bytes = b"abc") -> bytes:
    return gzip.compress(json.dumps(header).encode() + b"\n" + texts)


@pytest.mark.parametrize(
    "body",
    [
        b"not gzip",
        gzip.compress(b"no header line"),
        _with({"generation": 1}),
        _with({"slots": [["s", "k", 4]]}),  # longer than the texts
        _with({"slots": [["s", "k", 2]]}),  # a text left over
        _with({"slots": [["s", "k", -1]]}),
        _with({"slots": [["s", 5, 3]]}),
        _with({"slots": [["s", "k", True]]}),
        _with({"slots": [["s", "k"]]}),
        _with({"slots": [["s", "k", 3]]}, b"\xff\xfe\xfd"),  # not UTF-8
        _with([]),
    ],
)
def test_a_file_that_is_not_one_keeps_nothing(body: bytes) -> None:
    assert kept_statistics(body) == {}
