"""The panel's power and validity on the realistic world (``arena_local.validity.realistic``):
for each panel plan, seasons with a known truth read at several weeks, analysed as
``arena analyze`` analyses a dataset; printed as one table per plan.

    nice -n 10 .venv/bin/python bench/bench_power.py [--seasons 300] [--workers 2]
        [--plans before-30,before-100,...] [--reads 4,8,13,26] [--json OUT]

Columns, per reading week: the share of comparisons with a true Brier gap near 0.02 (0.015 to
0.025) called the right way, per comparison scheme; the share of seasons with any false
verdict, per scheme; the lowest coverage of the intervals shown (family Brier, skill and peer
score, pair differences at their level and rebuilt at 95%); the share of questions re-asked.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, replace
from datetime import date
from pathlib import Path

from arena_core.analysis import validity
from arena_core.analysis.clustered import Clustering
from arena_core.analysis.figures import Rules
from arena_core.analysis.validity import realistic_results, realistic_tables, text
from arena_local.validity.fitted import recorded
from arena_local.validity.plans import REALISTIC, VARIANTS, after, before, design_of, world_rows
from arena_local.validity.power import (
    Cell,
    Promises,
    Tally,
    check_promises,
    merged,
    merged_promises,
    run_plan,
)
from arena_local.validity.realistic import LLM, PanelPlan
from arena_local.validity.truth import Lineups, TruthPart, truth_from, truth_part

SEED = 20261128
OUT = Path(validity.__file__).with_name(validity.REALISTIC)
PLANS = {
    "before-30": lambda: before(30),
    "before-100": lambda: before(100),
    "before-300": lambda: before(300),
    **VARIANTS,
}
# Truth seasons pooled: 20 x 18,000 questions leave the truth's error at a fifth of a 13-week
# reading's on the deployed panel (its variance 1/20 of one season's split in two lineups).
TRUTH_REPEATS = 20
TRUTH_QUESTIONS = 18_000  # per truth season (at least 60 weeks)
OPEN_RULES = Rules(min_weeks=2, min_events=2, min_return_cohorts=2)


@dataclass(frozen=True)
class Job:
    plan: PanelPlan
    truth: Lineups
    reads: tuple[int, ...]
    seasons: int
    seed: int
    rules: Rules


def _run(job: Job) -> dict[int, Tally]:
    return run_plan(
        REALISTIC,
        job.plan,
        recorded(),
        job.truth,
        rules=job.rules,
        reads=job.reads,
        seasons=job.seasons,
        seed=job.seed,
    )


@dataclass(frozen=True)
class TruthJob:
    plan: PanelPlan
    weeks: int
    index: int


def _truth(job: TruthJob) -> TruthPart:
    return truth_part(REALISTIC, job.plan, recorded(), SEED, job.weeks, job.index)


@dataclass(frozen=True)
class PromiseJob:
    plan: PanelPlan
    first: int
    last: int
    seasons: int
    seed: int
    rules: Rules


def _promises(job: PromiseJob) -> Promises:
    return check_promises(
        REALISTIC,
        job.plan,
        recorded(),
        rules=job.rules,
        first=job.first,
        last=job.last,
        seasons=job.seasons,
        seed=job.seed,
    )


def promise_lines(found: Promises) -> list[str]:
    """Kept promises by how far ahead they were, and equal pairs promised, by reading week."""
    lines = ["weeks ahead  promises  decided by then"]
    for low, high in AHEAD:
        mine = [k for at, by, k in found.kept if low <= by - at <= high]
        share = f"{100 * sum(mine) / len(mine):5.1f}%" if mine else "    -"
        lines.append(f"{low:>4}-{high:<6}  {len(mine):>8}  {share}")
    kept = found.share_kept()
    equal = found.share_equal_promised()
    lines.append(f"all          {len(found.kept):>8}  {_pct(kept)}%")
    lines.append(
        f"equal pairs promised a verdict: {sum(p for _, p in found.equal)} of "
        f"{len(found.equal)} readings ({_pct(equal)}%)"
    )
    return lines


AHEAD = ((1, 2), (3, 4), (5, 8), (9, 52))


def record_promises(plan: PanelPlan, first: int, last: int, kept: Promises) -> None:
    results = dict(realistic_results())
    by_ahead = []
    for low, high in AHEAD:
        mine = [k for at, by, k in kept.kept if low <= by - at <= high]
        by_ahead.append([low, high, len(mine), sum(mine) / len(mine) if mine else None])
    results["promises"] = {
        "plan": plan.name,
        "first": first,
        "last": last,
        "by_ahead": by_ahead,
        "count": len(kept.kept),
        "kept": kept.share_kept(),
        "equal": [sum(p for _, p in kept.equal), len(kept.equal)],
    }
    OUT.write_text(json.dumps(results, indent=1) + "\n")


def _pct(value: float | None) -> str:
    return "   -" if value is None else f"{100 * value:4.0f}"


def table(cells: list[Cell]) -> list[str]:
    schemes = sorted({s for c in cells for s in c.power})
    head = "weeks " + " ".join(f"power:{s:<8}" for s in schemes)
    head += " " + " ".join(f"false:{s:<8}" for s in schemes) + " min-cover (kind)  re-asked"
    lines = [head]
    for cell in cells:
        shown = {k: v for k, v in cell.coverage.items() if v is not None}
        low = min(shown, key=lambda k: shown[k]) if shown else None
        cover = f"{100 * shown[low]:5.1f} ({low})" if low else "-"
        lines.append(
            f"{cell.weeks:>5} "
            + " ".join(f"{_pct(cell.power.get(s)):>14}" for s in schemes)
            + " "
            + " ".join(f"{_pct(cell.false.get(s)):>14}" for s in schemes)
            + f" {cover:<17} {100 * cell.reasked:5.1f}%"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=300)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--plans", default=",".join(PLANS))
    parser.add_argument("--reads", default="4,8,13,26")
    parser.add_argument("--truth-weeks", type=int, default=0, help="default: 18,000 questions")
    parser.add_argument(
        "--truth-repeats",
        type=int,
        default=TRUTH_REPEATS,
        help="independent truth seasons pooled (the truth's own error: see validity/truth.py)",
    )
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--write", action="store_true", help=f"put the results into {OUT.name} (the page's)"
    )
    parser.add_argument(
        "--clustering", type=Clustering, default=Rules().clustering, choices=list(Clustering)
    )
    parser.add_argument(
        "--promises",
        metavar="FIRST,LAST",
        help="instead: read each season at every week from FIRST to LAST and check every "
        "'about N more weeks' against the week it names",
    )
    args = parser.parse_args()
    rules = replace(OPEN_RULES, clustering=args.clustering)
    if args.promises:
        first, last = (int(w) for w in args.promises.split(","))
        for name in args.plans.split(","):
            plan = PLANS[name]()
            parts = max(1, args.workers) * 2
            promise_jobs = [
                PromiseJob(
                    plan,
                    first,
                    last,
                    args.seasons // parts + (i < args.seasons % parts),
                    SEED + 100 + i,
                    rules,
                )
                for i in range(parts)
            ]
            with ProcessPoolExecutor(max_workers=args.workers) as pool:
                kept = merged_promises(list(pool.map(_promises, promise_jobs)))
            print(f"\n{plan.name}: promises read weeks {first} to {last}, {args.seasons} seasons")
            print("\n".join(promise_lines(kept)), flush=True)
            if args.write:
                record_promises(plan, first, last, kept)
        return
    reads = tuple(int(w) for w in args.reads.split(","))
    started = time.perf_counter()
    found: dict[str, list[Cell]] = {}
    truths: dict[str, Lineups] = {}
    for name in args.plans.split(","):
        plan = PLANS[name]()
        weeks = args.truth_weeks or max(60, TRUTH_QUESTIONS // plan.design.size)
        parts = max(1, args.workers) * 2
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            pooled = pool.map(_truth, [TruthJob(plan, weeks, i) for i in range(args.truth_repeats)])
            truth = truth_from(list(pooled), REALISTIC)
        truths[plan.name] = truth
        jobs = [
            Job(
                plan,
                truth,
                reads,
                args.seasons // parts + (i < args.seasons % parts),
                SEED + i,
                rules,
            )
            for i in range(parts)
        ]
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            results = list(pool.map(_run, jobs))
        cells = [Cell.of(plan.name, at, merged([r[at] for r in results])) for at in reads]
        found[plan.name] = cells
        print(
            f"\n{plan.name} ({args.seasons} seasons; truth over {args.truth_repeats} x {weeks} "
            f"weeks; clustered by "
            f"{args.clustering.value})"
        )
        print("\n".join(table(cells)), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps({k: [asdict(c) for c in v] for k, v in found.items()}))
    if args.write:
        update_results(found, truths, args.seasons, args.truth_repeats)
    print(f"\n{time.perf_counter() - started:.0f} s")


def _order(plan: str) -> tuple[int, str]:
    """Before first, then the deployed design, then its variants."""
    return (0 if plan.startswith("top-500") else 1 if plan == after().name else 2, plan)


def update_results(
    found: dict[str, list[Cell]], truths: dict[str, Lineups], seasons: int, repeats: int
) -> None:
    """Put this run's cells into the published results (those of other plans kept), with the
    world's description, and print the page's tables."""
    results = dict(realistic_results())
    fresh = [asdict(c) for plan in found.values() for c in plan]
    measured = {(c["plan"], c["weeks"]) for c in fresh}
    cells = [c for c in results.get("cells", []) if (c["plan"], c["weeks"]) not in measured]
    cells = sorted([*cells, *fresh], key=lambda c: (_order(c["plan"]), c["weeks"]))
    default = after().name
    truth = truths.get(default) or next(iter(truths.values()))
    market = truth.after["brier", "market"]
    gaps = {
        f.family_id: truth.after["brier", f.family_id] - market
        for f in REALISTIC.forecasters
        if f.kind == LLM
    }
    results |= {
        "seed": SEED,
        "date": date.today().isoformat(),
        "seasons": seasons,
        "truth": {"repeats": repeats, "questions": TRUTH_QUESTIONS},
        "world": world_rows(REALISTIC, recorded(), gaps),
        "design": design_of(after().design),
        "cells": cells,
    }
    OUT.write_text(json.dumps(results, indent=1) + "\n")
    for line in text(realistic_tables(results)):
        print(line)


if __name__ == "__main__":
    main()
