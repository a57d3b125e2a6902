"""The validity benchmark: how often the leaderboard's intervals cover the truth, how often its
verdicts are false, and how soon they come, on simulated seasons with a known truth.

``run`` measures, for v1 and for v1+panel at several panel sizes and season lengths, with the
clustering scheme the analysis uses (and, for the choice of scheme, with each scheme on one
design), then derives the minimum sample below which no interval is shown and writes
everything to a results file the methodology page is generated from. The seasons are analysed
by ``arena_core.analysis`` exactly as the site and ``arena analyze`` analyse a dataset.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date

from arena_core.analysis.clustered import Clustering
from arena_core.analysis.figures import Rules
from arena_local.validity.evaluate import INTERVALS, Tally, Truth, run_cell, truth_of
from arena_local.validity.world import Design, FamilySpec, WorldSpec

TARGET_COVERAGE = 0.93
TARGET_FALSE = 0.05
POWER = 0.80
GAPS = (0.01, 0.02, 0.05)

# Seven families of known skill: two pairs exactly equal, and one leaning YES (its skill is
# the second pair's, so "by date" questions that resolve YES early flatter it).
FAMILIES = (
    FamilySpec("sharp", 0.3),
    FamilySpec("good-a", 0.6),
    FamilySpec("good-b", 0.6),
    FamilySpec("fair-a", 0.9),
    FamilySpec("fair-b", 0.9),
    FamilySpec("poor", 1.6),
    FamilySpec("yes-leaning", 0.6, bias=0.5),
)
WORLD = WorldSpec(FAMILIES)
# Early resolution at its worst: most questions "by date", many of them months long.
LONG_DATED = replace(WORLD, by_date_share=0.7, longest_weeks=26)


@dataclass(frozen=True)
class Plan:
    seasons: int
    weeks: tuple[int, ...] = (2, 4, 8, 13, 26, 52)
    panel_sizes: tuple[int, ...] = (30, 60, 100)
    scheme_weeks: tuple[int, ...] = (4, 8, 13, 26)
    truth_weeks: int = 1500
    seed: int = 20261125


def _designs(plan: Plan, weeks: int) -> list[Design]:
    return [Design("v1", weeks)] + [
        Design("v1+panel", weeks, panel_size=k, returns=False) for k in plan.panel_sizes
    ]


def _label(design: Design) -> str:
    return "v1" if design.methodology == "v1" else f"v1+panel K={design.panel_size}"


def _rate(hits: int, total: int) -> float | None:
    return hits / total if total else None


def _cell(design: Design, tally: Tally, scheme: Clustering) -> dict[str, object]:
    called = {str(g): _rate(sum(v), len(v)) for g, v in sorted(tally.called.items())}
    return {
        "design": _label(design),
        "methodology": design.methodology,
        "panel_size": design.panel_size if design.methodology != "v1" else None,
        "weeks": design.weeks,
        "scheme": scheme.value,
        "seasons": tally.seasons,
        "coverage": {k: tally.coverage(k) for k in INTERVALS},
        "intervals": {k: tally.shown[k] for k in INTERVALS},
        "false_verdicts": tally.false_seasons / tally.seasons,
        "rank_coverage": _rate(tally.ranks_covered, tally.ranks_shown),
        "rank_width": tally.rank_width / tally.ranks_shown if tally.ranks_shown else None,
        "called": called,
    }


def _bias(tally: Tally) -> dict[str, object]:
    """Mean (figure - truth) over seasons for every family, ranked and provisional, with the
    largest |mean| / its Monte-Carlo error (a t above 2 is a measurable bias)."""

    def worst(samples: dict[str, list[float]]) -> dict[str, float]:
        found = {}
        for family, values in samples.items():
            if len(values) < 2:
                continue
            mean = statistics.fmean(values)
            error = statistics.stdev(values) / math.sqrt(len(values))
            found[family] = mean / error if error else 0.0
        key = max(found, key=lambda f: abs(found[f])) if found else ""
        mean = statistics.fmean(samples[key]) if key else 0.0
        return {"family": key, "t": found.get(key, 0.0), "mean": mean}  # type: ignore[dict-item]

    return {"ranked": worst(tally.bias), "provisional": worst(tally.provisional_bias)}


def weeks_to_verdict(cells: Sequence[dict[str, object]], design: str) -> dict[str, int | None]:
    """Per true Brier gap, the fewest weeks at which the right verdict comes in at least 80% of
    seasons (None: not within the longest season measured)."""
    found: dict[str, int | None] = {}
    for gap in GAPS:
        weeks = None
        for cell in sorted((c for c in cells if c["design"] == design), key=lambda c: c["weeks"]):  # type: ignore[arg-type,return-value]
            power = cell["called"].get(str(gap))  # type: ignore[attr-defined]
            if power is not None and power >= POWER:
                weeks = cell["weeks"]
                break
        found[str(gap)] = weeks  # type: ignore[assignment]
    return found


def minimum_weeks(cells: Sequence[dict[str, object]], weeks: Sequence[int]) -> int:
    """The fewest weeks from which every interval type covers at least 93% in every design."""
    ok = []
    for w in weeks:
        rows = [c for c in cells if c["weeks"] == w]
        coverages = [
            v
            for c in rows
            for k, v in c["coverage"].items()  # type: ignore[attr-defined]
            if v is not None and k != "return"
        ]
        ok.append(all(v >= TARGET_COVERAGE for v in coverages))
    for index, w in enumerate(weeks):
        if all(ok[index:]):
            return w
    return weeks[-1]


def run(plan: Plan, rules: Rules, progress: bool = True) -> dict[str, object]:
    """Every cell of the plan; ``rules`` are the analysis' own, with the week minimum lifted so
    coverage is measured at every season length."""
    open_rules = replace(rules, min_weeks=2, min_return_cohorts=2)
    truths: dict[str, Truth] = {
        m: truth_of(WORLD, m, plan.seed, plan.truth_weeks) for m in ("v1", "v1+panel")
    }
    cells = []
    for weeks in plan.weeks:
        for design in _designs(plan, weeks):
            tally = run_cell(
                WORLD,
                design,
                truths[design.methodology],
                open_rules,
                plan.seasons,
                plan.seed + weeks,
            )
            cells.append(_cell(design, tally, rules.clustering))
            if progress:
                print(_summary(cells[-1]), flush=True)
    schemes = []
    for weeks in plan.scheme_weeks:
        design = Design("v1+panel", weeks, panel_size=plan.panel_sizes[0], returns=False)
        for scheme in Clustering:
            scheme_rules = replace(open_rules, clustering=scheme)
            tally = run_cell(
                WORLD, design, truths["v1+panel"], scheme_rules, plan.seasons, plan.seed + 7 * weeks
            )
            schemes.append(_cell(design, tally, scheme))
            if progress:
                print(_summary(schemes[-1]), flush=True)
    return {
        "seed": plan.seed,
        "date": date.today().isoformat(),
        "seasons": plan.seasons,
        "truth_weeks": plan.truth_weeks,
        "scheme": rules.clustering.value,
        "families": [f"{f.family_id}: noise {f.noise}, bias {f.bias}" for f in FAMILIES],
        "cells": cells,
        "schemes": schemes,
        "bias": _early_resolution(plan, open_rules),
        "weeks_to_verdict": {
            _label(d): weeks_to_verdict(cells, _label(d)) for d in _designs(plan, plan.weeks[0])
        },
        "minimum_weeks": minimum_weeks(cells, plan.weeks),
    }


def _early_resolution(plan: Plan, rules: Rules) -> list[dict[str, object]]:
    """Bias of the ranked figure (matured questions) against the provisional one (everything
    resolved so far), on the usual world and on one where long "by date" questions dominate."""
    found = []
    for name, world in (("recorded mix", WORLD), ("long-dated by-date", LONG_DATED)):
        truth = truth_of(world, "v1", plan.seed, plan.truth_weeks)
        for weeks in (4, 8, 13):
            tally = run_cell(
                world,
                Design("v1", weeks, returns=False),
                truth,
                rules,
                plan.seasons,
                plan.seed + 11 * weeks,
            )
            found.append({"world": name, "weeks": weeks, **_bias(tally)})
    return found


def _summary(cell: dict[str, object]) -> str:
    coverage = " ".join(
        f"{k} {'-' if v is None else f'{100 * v:.1f}'}"
        for k, v in cell["coverage"].items()  # type: ignore[attr-defined]
    )
    return (
        f"{cell['design']:<18} {cell['scheme']:<10} {cell['weeks']:>3} weeks: coverage {coverage};"
        f" false verdicts {100 * cell['false_verdicts']:.1f}%; called {cell['called']}"  # type: ignore[operator]
    )
