"""The demo's printout of the published leaderboards: one per methodology version, the
v1+panel one ranked on the panel with its reference rows."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from arena_local.demo.printout import print_leaderboards


def write(folder: Path, name: str, rows: list[dict[str, Any]]) -> None:
    (folder / "data").mkdir(exist_ok=True)
    (folder / "data" / f"{name}.json").write_text(json.dumps(rows))


def test_a_panel_board_prints_its_own_columns_and_reference_rows(tmp_path: Path) -> None:
    write(tmp_path, "leaderboard", [{"methodology": "v1+panel", "display_name": "A"}])
    common = {"methodology": "v1+panel", "panel_forecasts": 60, "missing": 2}
    write(
        tmp_path,
        "panel_leaderboard",
        [
            common
            | {"display_name": "Leader", "kind": "llm", "stand_in": False, "rank": 1}
            | {"rank_best": 1, "rank_worst": 2, "peer_score": 12.5, "peer_score_low": 3.25}
            | {"peer_score_high": 20, "brier": 0.1, "coherence_trades": 4, "coherent_trades": 3}
            | {"bet_brier": 0.2, "return_pct_mean": 4.5},
            common
            | {"display_name": "Ensemble of the models", "kind": "ensemble", "stand_in": False}
            | {"peer_score": -0.01, "standing": "reference"},
        ],
    )
    stream = io.StringIO()
    print_leaderboards(tmp_path, stream)
    lines = stream.getvalue().strip().splitlines()
    assert lines[0] == "Leaderboard (methodology v1+panel: ranked on the forecast panel)"
    leader, ensemble = lines[2:4]
    assert leader.startswith("1-2 ") and "12.5 [3.2, 20.0]" in leader and " 3/4 " in leader
    assert leader.endswith("model") and " 60    2 " in leader
    assert ensemble.startswith("- ") and ensemble.endswith("ensemble") and " 0.0 " in ensemble


def test_two_versions_print_two_titled_boards_in_site_order(tmp_path: Path) -> None:
    rows = [
        {"methodology": "v1+panel", "display_name": "P", "total_pnl": 1, "resolved_bets": 1},
        {"methodology": "v1", "display_name": "V", "total_pnl": 2, "resolved_bets": 3},
    ]
    write(tmp_path, "leaderboard", rows)
    write(tmp_path, "panel_leaderboard", [{"methodology": "v1+panel", "display_name": "P"}])
    stream = io.StringIO()
    print_leaderboards(tmp_path, stream)
    titles = [line for line in stream.getvalue().splitlines() if line.startswith("Leaderboard")]
    assert titles == [
        "Leaderboard (methodology v1+panel: ranked on the forecast panel)",
        "Leaderboard (methodology v1)",
    ]
