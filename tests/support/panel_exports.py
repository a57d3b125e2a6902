"""Recompute the v1+panel leaderboard from a published dataset, as a researcher would with
``arena analyze``, and check the published file is exactly what that gives."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from arena_core.dataset.boards import BoardResult
from arena_local.analyze import FolderSource, analyse, json_files

Row = dict[str, str]


def read_csv(path: Path) -> list[Row]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


def recompute_panel_leaderboard(data: Path) -> BoardResult:
    """The v1+panel board recomputed from the input tables; the published leaderboard,
    panel leaderboard and pairwise files must be what it gives, byte for byte."""
    results = analyse(FolderSource(data))
    for name, body in json_files(results).items():
        assert body == (data / name).read_bytes(), name
    return next(b for b in results if b.methodology == "v1+panel")
