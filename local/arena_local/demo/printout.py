"""The demo's closing printout of the published leaderboards, read back from the exports.

One table per methodology version, the current one first: under v1 the families ranked by mean
Brier of their bets; under v1+panel ranked by mean peer score on the forecast panel, with the
panel Brier, skill, fill-ins, coherent buys and the v1 trading columns beside.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from arena_core.domain.lineup import AgentKind
from arena_core.domain.panel import Methodology
from arena_core.domain.text import terminal_text
from arena_local.standins import is_stand_in

FAMILY_WIDTH = 38
Row = dict[str, Any]


def _rows(out: Path, table: str) -> list[Row]:
    path = out / "data" / f"{table}.json"
    return list(json.loads(path.read_text())) if path.exists() else []


def print_leaderboards(out: Path, stream: TextIO) -> None:
    """Every published leaderboard, in the order the site shows them."""
    print_tables(_rows(out, "leaderboard"), _rows(out, "panel_leaderboard"), stream)


def print_tables(board: list[Row], panel: list[Row], stream: TextIO) -> None:
    """The rows of the leaderboard tables, one table per methodology version (the order of the
    rows: the current version first)."""
    versions: list[str] = []
    for row in [*board, *panel]:  # a leaderboard written before versions existed is v1's
        version = str(row.get("methodology") or Methodology.V1.value)
        if version not in versions:
            versions.append(version)
    titled = len(versions) > 1
    for version in versions:
        title = f" (methodology {version})" if titled else ""
        if version == Methodology.V1_PANEL:
            _print_panel([r for r in panel if r.get("methodology") == version], stream)
        else:
            mine = [r for r in board if (r.get("methodology") or Methodology.V1.value) == version]
            _print_v1(mine, title, stream)


def _print_v1(rows: list[Row], title: str, stream: TextIO) -> None:
    """Rank range (or why unranked), mean Brier and return with their 95% intervals, skill vs
    the market, and what each row is."""
    width = FAMILY_WIDTH
    stream.write(f"\nLeaderboard{title}\n")
    stream.write(
        f"{'rank':<6} {'family':{width}} {'Brier [95% CI]':<22} {'all':>5} {'first':>5} "
        f"{'skill':>6} {'return % [95% CI]':<24} {'P/L $':>10} bets  agent\n"
    )
    for row in rows:
        brier = _with_interval(row, "brier", "brier_low", "brier_high", 3)
        ret = _with_interval(row, "return_pct_mean", "return_low", "return_high", 2)
        name = terminal_text(row["display_name"])[:width]  # stored text, shown inert
        stream.write(
            f"{_rank_range(row):<6} {name:{width}} {brier:<22} "
            f"{_num(row.get('provisional_brier'), 3):>5} {_share(row.get('first_share')):>5} "
            f"{_num(row.get('brier_skill_vs_market'), 3):>6} {ret:<24} "
            f"{_num(row.get('total_pnl'), 2):>10} {_count(row.get('resolved_bets')):>4}  "
            f"{_agent_kind(row)}\n"
        )
    stream.write(
        "rank: best-worst rank the pairwise verdicts allow (Holm; * tied with the leader); "
        "Brier: over matured questions, interval only from the validity minimum; all: over "
        "every resolved bet (provisional); first: share of draws ranked first; skill: vs the "
        "market's price\n"
    )
    _needs(rows, stream)


def _print_panel(rows: list[Row], stream: TextIO) -> None:
    width = FAMILY_WIDTH
    stream.write("\nLeaderboard (methodology v1+panel: ranked on the forecast panel)\n")
    stream.write(
        f"{'rank':<6} {'forecaster':{width}} {'peer [95% CI]':<22} {'first':>5} "
        f"{'Brier [95% CI]':<22} {'skill':>6} {'n':>4} {'miss':>4} {'coherent':>8} "
        f"{'bet Brier':>9} {'return %':>8}  agent\n"
    )
    for row in rows:
        peer = _with_interval(row, "peer_score", "peer_score_low", "peer_score_high", 1)
        brier = _with_interval(row, "brier", "brier_low", "brier_high", 3)
        trades = row.get("coherence_trades")
        coherent = f"{row.get('coherent_trades')}/{trades}" if trades else "-"
        name = terminal_text(row["display_name"])[:width]  # stored text, shown inert
        stream.write(
            f"{_rank_range(row):<6} {name:{width}} {peer:<22} "
            f"{_share(row.get('first_share')):>5} "
            f"{brier:<22} {_num(row.get('brier_skill_vs_market'), 3):>6} "
            f"{_count(row.get('panel_forecasts')):>4} {_count(row.get('missing')):>4} "
            f"{coherent:>8} {_num(row.get('bet_brier'), 3):>9} "
            f"{_num(row.get('return_pct_mean'), 2):>8}  {_agent_kind(row)}\n"
        )
    stream.write(
        "rank: best-worst rank the pairwise peer-score verdicts allow (Holm; * tied with the "
        "leader); peer: mean Metaculus peer score among the models (x100) over matured "
        "questions; first: share of draws ranked first; skill: panel Brier skill vs the "
        "market's price at capture; n: matured panel forecasts, miss: of them filled in; "
        "coherent: buys that follow the agent's own forecast; bet Brier, return %: v1's\n"
    )
    _needs(rows, stream)


def _needs(rows: list[Row], stream: TextIO) -> None:
    """What the provisional rows still need before a rank or an interval, once per reason."""
    reasons = sorted({str(r["needs"]) for r in rows if r.get("needs")})
    if reasons:
        stream.write(f"prov. (no rank, no interval yet): {'; '.join(reasons)}\n")
    stream.write("\n")


def _share(value: str | float | None) -> str:
    return "-" if value is None else f"{100 * float(value):.0f}%"


def _rank_range(row: Row) -> str:
    if row.get("rank") is None:
        return "prov." if row.get("standing") == "provisional" else "-"
    best, worst = row.get("rank_best"), row.get("rank_worst")
    shown = str(row["rank"]) if best is None or best == worst else f"{best}-{worst}"
    return shown + ("*" if row.get("tied_with_leader") else "")


def _with_interval(row: Row, value: str, low: str, high: str, places: int) -> str:
    """The value with its interval, or alone when no interval is shown yet."""
    shown = _num(row.get(value), places)
    if row.get(low) is None or row.get(high) is None:
        return shown
    return f"{shown} [{_num(row[low], places)}, {_num(row[high], places)}]"


def _agent_kind(row: Row) -> str:
    """stand-in, model, or the row's own kind (baseline, ensemble, a market reference row); a
    leaderboard without the ``stand_in`` field (written before it existed) is read by the id."""
    stand_in = row.get("stand_in")
    if stand_in is None:
        stand_in = is_stand_in(str(row.get("family_id", "")))
    if stand_in:
        return "stand-in"
    kind = str(row.get("kind") or "-")
    return "model" if kind == AgentKind.LLM.value else kind


def _num(value: str | float | None, places: int) -> str:
    if value is None:
        return "-"
    shown = f"{float(value):.{places}f}"
    return shown[1:] if float(shown) == 0 and shown.startswith("-") else shown  # no "-0.000"


def _count(value: int | None) -> str:
    return "-" if value is None else str(value)
