"""The validity benchmark's published results: what the methodology page shows and what the
analysis' minimum samples come from.

``validity.json`` sits beside this module; ``bench/bench_statistics_validity.py`` writes it
(with its seed and date) from simulated seasons with a known truth. This module reads it and
lays it out as tables (a header, then rows of cells), for the page and for the benchmark's own
printout alike.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESULTS = "validity.json"
INTERVAL_NAMES = {
    "brier": "Family Brier",
    "skill": "Skill vs market",
    "return": "Return",
    "peer": "Peer score",
    "pair": "Pair difference (at its Holm level, ≥ 95%)",
}
GAP_NAMES = {"0.01": "Brier gap 0.01", "0.02": "Brier gap 0.02", "0.05": "Brier gap 0.05"}


@dataclass(frozen=True)
class Table:
    title: str
    note: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@functools.cache
def results() -> Mapping[str, Any]:
    """The results file shipped with the layer (an empty mapping when absent)."""
    path = Path(__file__).with_name(RESULTS)
    return json.loads(path.read_text()) if path.is_file() else {}


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def coverage_table(found: Mapping[str, Any]) -> Table:
    minimum = found["minimum_clusters"]
    rows = []
    for cell in found["cells"]:
        shown = cell["weeks"] >= minimum
        values = [
            _pct(cell["coverage"][k]) if cell["intervals"][k] else "—" for k in INTERVAL_NAMES
        ]
        rows.append((cell["design"], str(cell["weeks"]), *values, "yes" if shown else "no"))
    return Table(
        "Coverage of nominal 95% intervals",
        f"Share of intervals that contain the true value, among those formed (every minimum "
        f"lifted so that each season length is measured). The site shows intervals from "
        f"{minimum} run weeks (and as many events) on; returns from "
        f"{found['minimum_return_cohorts']} matured cohorts.",
        ("Design", "Weeks", *INTERVAL_NAMES.values(), "Shown on the site"),
        tuple(rows),
    )


def verdict_table(found: Mapping[str, Any]) -> Table:
    rows = [
        (
            cell["design"],
            str(cell["weeks"]),
            _pct(cell["false_verdicts"]),
            _pct(cell["rank_coverage"]),
            "—" if cell["rank_width"] is None else f"{cell['rank_width']:.1f}",
            *(_pct(cell["called"].get(g)) for g in GAP_NAMES),
        )
        for cell in found["cells"]
    ]
    return Table(
        "Verdicts and rank ranges",
        "False verdicts: share of seasons with any false 'A better than B' on the ranked "
        "measure (Holm over every pair of the models and the market). Rank ranges: share that "
        "contain the true ranks, and their mean width (of 7). Last columns: share of seasons "
        "calling a pair with that true Brier gap the right way.",
        ("Design", "Weeks", "False verdicts", "Rank ranges hold", "Width", *GAP_NAMES.values()),
        tuple(rows),
    )


def weeks_table(found: Mapping[str, Any]) -> Table:
    rows = [
        (design, *("—" if gaps.get(g) is None else str(gaps[g]) for g in GAP_NAMES))
        for design, gaps in found["weeks_to_verdict"].items()
    ]
    return Table(
        "Weeks to a verdict (80% power)",
        "The fewest run weeks measured at which a pair with this true Brier gap is called the "
        "right way in at least 80% of seasons (— : not within a year).",
        ("Design", *GAP_NAMES.values()),
        tuple(rows),
    )


def scheme_table(found: Mapping[str, Any]) -> Table:
    rows = [
        (
            cell["scheme"],
            str(cell["weeks"]),
            *(_pct(cell["coverage"][k]) for k in ("brier", "peer", "pair")),
            _pct(cell["false_verdicts"]),
            _pct(cell["called"].get("0.02")),
        )
        for cell in found["schemes"]
    ]
    return Table(
        "Clustering schemes compared (v1+panel, K = 30)",
        f"The site clusters by {found['scheme']}.",
        (
            "Clusters",
            "Weeks",
            "Family Brier",
            "Peer score",
            "Pair difference",
            "False verdicts",
            "Gap 0.02 called",
        ),
        tuple(rows),
    )


def bias_table(found: Mapping[str, Any]) -> Table:
    rows = [
        (
            b["world"],
            str(b["weeks"]),
            f"{b['ranked']:+.4f} (t {b['ranked_t']:+.1f})",
            f"{b['provisional']:+.4f} (t {b['provisional_t']:+.1f})",
            f"{b['worst_ranked_t']:.1f}",
        )
        for b in found["bias"]
    ]
    return Table(
        "Early resolution: bias of the YES-leaning family's Brier",
        "Mean (figure - truth) over seasons, v1: over matured questions (what is ranked) and "
        "over everything resolved so far (provisional). A |t| above 2 is a bias the benchmark "
        "can measure; the last column is the largest |t| of any family's ranked figure.",
        ("World", "Weeks", "Ranked (matured)", "Provisional (all resolved)", "Largest |t|"),
        tuple(rows),
    )


def all_tables(found: Mapping[str, Any]) -> list[Table]:
    if not found:
        return []
    return [
        coverage_table(found),
        verdict_table(found),
        weeks_table(found),
        scheme_table(found),
        bias_table(found),
    ]


def text(tables: Sequence[Table]) -> list[str]:
    """The tables as aligned plain text (the benchmark's printout)."""
    lines = []
    for table in tables:
        widths = [
            max(len(row[i]) for row in (table.header, *table.rows))
            for i in range(len(table.header))
        ]
        lines += ["", table.title]
        for row in (table.header, *table.rows):
            lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
    return lines


REALISTIC = "validity_realistic.json"


@functools.cache
def realistic_results() -> Mapping[str, Any]:
    """The realistic world's results (``bench/bench_power.py --write``), empty when absent."""
    path = Path(__file__).with_name(REALISTIC)
    return json.loads(path.read_text()) if path.is_file() else {}


def _cell_pct(cell: Mapping[str, Any], part: str, key: str) -> str:
    value = cell[part].get(key)
    return _pct(value)


def power_table(found: Mapping[str, Any]) -> Table:
    rows = [
        (
            cell["plan"],
            str(cell["weeks"]),
            str(cell["seasons"]),
            *(
                _cell_pct(cell, "power", k)
                for k in ("primary", "best", "market", "pairs", "primary, late")
            ),
            *(_cell_pct(cell, "false", k) for k in ("primary", "pairs")),
            _pct(cell["reasked"]),
        )
        for cell in found["cells"]
    ]
    return Table(
        "Realistic world: comparisons that call a true Brier gap of 0.02, and false verdicts",
        "Share of comparisons whose true Brier gap is 0.015 to 0.025 called the right way by "
        "the week shown (from the first cohort; questions count once they mature), on the "
        "ranked measure (peer score): the primary comparisons together, MCB ('not the best' "
        "for a model 0.02 behind the best), against the market, and the secondary pairs "
        "(Holm over every pair), for the models there from the first cohort; then the primary "
        "comparisons of the two models that join in week 4 (four weeks fewer). False verdicts: "
        "share of seasons with any false verdict in the family shown. Re-asked: share of "
        "questions whose market an earlier week asked.",
        (
            "Panel",
            "Weeks",
            "Seasons",
            "Primary",
            "Not the best",
            "Vs market",
            "Pairs",
            "Primary, late models",
            "False: primary",
            "False: pairs",
            "Re-asked",
        ),
        tuple(rows),
    )


COVERAGE_NAMES = {
    "brier": "Family Brier",
    "skill": "Skill vs market",
    "peer": "Peer score",
    "pair": "Pair (its Holm level)",
    "pair95": "Pair rebuilt at 95%",
    "market": "Vs market (its level)",
    "best": "MCB",
}


def realistic_coverage_table(found: Mapping[str, Any]) -> Table:
    rows = [
        (
            cell["plan"],
            str(cell["weeks"]),
            *(_cell_pct(cell, "coverage", k) for k in COVERAGE_NAMES),
        )
        for cell in found["cells"]
    ]
    truth = found.get("truth")
    pooled = (
        f" The true value: each figure's mean over {truth['repeats']} independent seasons of "
        f"about {truth['questions']:,} questions each (a single season's truth erred by as much "
        "as a 13-week reading)."
        if truth
        else ""
    )
    return Table(
        "Realistic world: coverage of the intervals shown",
        "Share of the intervals shown that contain the true value (target: at least 93% at "
        f"every horizon from 4 weeks).{pooled}",
        ("Panel", "Weeks", *COVERAGE_NAMES.values()),
        tuple(rows),
    )


def promises_table(found: Mapping[str, Any]) -> Table:
    promises = found["promises"]
    rows = [
        (f"{low} to {high}", str(count), _pct(share))
        for low, high, count, share in promises["by_ahead"]
    ]
    rows.append(("all", str(promises["count"]), _pct(promises["kept"])))
    equal = promises["equal"]
    return Table(
        "Realistic world: 'about N more weeks'",
        f"{promises['plan']}, seasons read at every week from {promises['first']} to "
        f"{promises['last']}: of the undecided pairs told they would be decided by week W, the "
        f"share decided when the same season is read at W, by how far ahead W was. Equal "
        f"pairs were promised a verdict in {equal[0]} of {equal[1]} readings.",
        ("Weeks ahead", "Promises", "Decided by then"),
        tuple(rows),
    )


def world_table(found: Mapping[str, Any]) -> Table:
    return Table(
        "Realistic world: what is fitted to the recorded dump, and what is assumed",
        f"Seed {found['seed']}, run {found['date']}, {found['seasons']} seasons per cell.",
        ("Quantity", "Value", "From"),
        tuple(tuple(row) for row in found["world"]),
    )


def realistic_tables(found: Mapping[str, Any]) -> list[Table]:
    if not found:
        return []
    tables = [world_table(found), power_table(found), realistic_coverage_table(found)]
    if found.get("promises"):
        tables.append(promises_table(found))
    return tables
