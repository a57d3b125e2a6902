"""What the site-wide pages show beyond the leaderboard rows: each family's costs, the time the
values are from, the site-wide tables, the pairs, the model pages' sections and recent decisions,
and the cohorts listing."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from arena_core.analysis.families import Breakdown, Calibration
from arena_core.dataset import boards as boards_module
from arena_core.dataset import exports, tables
from arena_core.dataset.cohort_tables import cohort_tables
from arena_core.dataset.costs import CostSummary, per_forecast, summary
from arena_core.dataset.records import DecisionView
from arena_core.dataset.table import Table, joined
from arena_core.domain.cohort import Cohort
from arena_core.domain.commitment_log import decision_key
from arena_core.site import pairwise
from arena_core.site.costs import Spend
from arena_core.site.reliability import reliability_diagram
from arena_core.site.views import FamilyView, LeaderboardData

RECENT_DECISIONS = 5
EMPTY_CALIBRATION = Calibration((), (), None, None)
RECENT_COHORTS = 12  # rows of a model page's cohort table: page weight stays flat with history
# The figures of a live cohort's JSON (``site/live.py``), named on the data page.
LIVE_AGENT_FIGURES = (
    "cash", "positions_value", "total_value", "total_pnl", "total_pnl_pct", "brier", "trades",
)  # fmt: skip
LIVE_POSITION_FIGURES = ("status", "shares", "price", "value", "realized_pnl")


Keyed = Callable[[str, Callable[[], Sequence[exports.Row]], "str | None"], Table]


def unkept(name: str, rows: Callable[[], Sequence[exports.Row]], key: str | None) -> Table:
    """A table computed from its rows (nothing kept)."""
    del key
    return Table(name, rows)


def board_costs(
    boards: Sequence[LeaderboardData], spend: Spend
) -> dict[tuple[str, str], tuple[CostSummary, Decimal | None]]:
    """Per (methodology, family): what its decisions cost over the leaderboard's cohorts
    (``costs.family_costs``), and dollars per scored forecast (under v1+panel, per scored
    panel forecast)."""
    found = {}
    for board in boards:
        for view in board.families:
            family = view.spec.family_id
            cost = spend.get((board.methodology, family)) or summary(())
            row = board.row(family)
            forecasts = row.result.resolved if row and row.result else 0
            found[(board.methodology, family)] = (cost, per_forecast(cost, forecasts))
    return found


def values_as_of(boards: Sequence[LeaderboardData]) -> datetime | None:
    """The newest snapshot the leaderboards show: the time their values are from."""
    return max((b.as_of for b in boards if b.as_of is not None), default=None)


def global_tables(boards: Sequence[LeaderboardData], keyed: Keyed = unkept) -> list[Table]:
    """Every site-wide table: the input tables as published, then what is computed from them,
    each holding the rows of every leaderboard (the current methodology first). The computed
    tables that show only what the kept statistics decide are made through ``keyed`` with what
    those were computed from (``board_key``): a publication that computed no statistic neither
    formats nor serializes them."""
    found = {
        name: joined(name, [b.inputs.get(name) or Table.of(name, []) for b in boards])
        for name in tables.INPUT_TABLES
    }
    results = [b.result for b in boards]
    key = board_key(results)
    for name in tables.OUTPUT_TABLES:
        rows = functools.partial(tables.output_rows, name, results)
        found[name] = keyed(name, rows, key if name in tables.KEPT_OUTPUTS else None)
    return [found[name] for name in tables.GLOBAL_TABLES]


def board_key(results: Sequence[boards_module.BoardResult]) -> str | None:
    """What the kept statistics of every board were computed from, or None when some board's
    were computed from what is not kept (the panel's)."""
    keys = [r.key for r in results]
    if any(k is None for k in keys):
        return None
    return hashlib.sha256("\0".join(k or "" for k in keys).encode()).hexdigest()


def cohort_models(
    family_id: str, cohorts: Sequence[Cohort], costs: Sequence[dict[str, Any]]
) -> dict[str, tuple[str, str]]:
    """Per cohort of the family: the provider model id its lineup asked for, and the ids the
    provider reported answering (from the costs table; empty before any reply)."""
    found: dict[str, tuple[str, str]] = {}
    for cohort in cohorts:
        spec = next((s for s in cohort.lineup if s.family_id == family_id), None)
        if spec is not None:
            found[cohort.cohort_id] = (spec.model_id, "")
    for row in costs:
        if row["family_id"] == family_id and row["cohort_id"] in found:
            asked, answered = found[row["cohort_id"]]
            names = set(answered.split()) | set(str(row.get("answered_by") or "").split())
            found[row["cohort_id"]] = (asked, " ".join(sorted(names)))
    return found


def commitment_key(decision_id: str, sha256: str | None) -> str | None:
    """The key of a decision's committed record, when it has one (a succeeded decision)."""
    if sha256 is None:
        return None
    try:
        return decision_key(decision_id, sha256)
    except ValueError:  # a record stored before commitments existed cannot name one
        return None


def cohorts_json(cohorts: Sequence[Cohort]) -> bytes:
    listing = [
        {
            "cohort_id": c.cohort_id,
            "week_start": exports.cell(c.week_start),
            "status": c.status.value,
            "methodology": c.methodology_version,
            "files": [f"cohorts/{c.cohort_id}/{t}.csv" for t in cohort_tables(c)],
        }
        for c in cohorts
    ]
    return json.dumps(listing, indent=1).encode()


def pairwise_sections(boards: Sequence[LeaderboardData]) -> list[dict[str, Any]]:
    sections = []
    for board in boards:
        result = board.result
        shown = result.shown
        names = {row.family_id: row.display_name for row in result.rows}
        pairs = [*shown.pairs, *shown.brier_pairs, *result.bets.return_pairs]
        sections.append(
            {
                "methodology": board.methodology,
                "panel": result.panel is not None,
                "measure": shown.measure.name,
                "compared": shown.compared,
                "rules": result.rules,
                "primary": pairwise.primary_lines(shown.primary, names),
                "primary_alpha": shown.primary.alpha if shown.primary else None,
                "matrices": pairwise.matrices(pairs, names),
                "lines": pairwise.lines(pairs, names),
                "unshared": sum(p.difference is None for p in pairs),
            }
        )
    return sections


def model_sections(boards: Sequence[LeaderboardData]) -> dict[str, list[dict[str, Any]]]:
    """Per family, one section per leaderboard it is on: its row, its figures, calibration and
    breakdowns there (under v1+panel, of its panel forecasts, with its coherence)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for board in boards:
        shown = board.result.shown
        breakdowns: dict[str, list[Breakdown]] = {}
        for b in shown.breakdowns:
            breakdowns.setdefault(b.family_id, []).append(b)
        for view in board.families:
            family = view.spec.family_id
            row = board.row(family)
            result = shown.families.get(family)
            calibration = result.calibration if result else EMPTY_CALIBRATION
            found.setdefault(family, []).append(
                {
                    "board": board,
                    "view": view,
                    "row": row,
                    "calibration": calibration,
                    "diagram": reliability_diagram(calibration.bins, calibration.market_bins),
                    "breakdowns": breakdowns.get(family, []),
                }
            )
    return found


def recent_decisions(
    families: Sequence[FamilyView], decisions: Sequence[tuple[str, DecisionView]]
) -> None:
    """Attach each family's most recent decisions (``decisions``: by family id)."""
    by_family: dict[str, list[DecisionView]] = {}
    for family_id, decision in decisions:
        by_family.setdefault(family_id, []).append(decision)
    for family in families:
        found = sorted(
            by_family.get(family.spec.family_id, []),
            key=lambda d: (d.record.updated_at, d.record.decision_id),
        )
        family.recent = found[-RECENT_DECISIONS:][::-1]
