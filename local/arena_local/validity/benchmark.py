"""The validity benchmark: how often the leaderboard's intervals cover the truth, how often its
verdicts are false, and how soon they come, on simulated seasons with a known truth.

``run`` measures v1 and v1+panel (several panel sizes) at several season lengths, with every
minimum lifted so coverage is seen at every sample; compares the three clustering schemes on
one design; measures the early-resolution bias of the ranked and the provisional figures; and
derives the minimum sample below which no interval, rank range or verdict is shown. The seasons
are analysed by ``arena_core.analysis`` exactly as the site and ``arena analyze`` analyse a
dataset. ``results.json`` (seed and date included) is what the methodology page is generated
from, and the analysis' default ``Rules`` must match the minimums it derives (a test checks).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from datetime import date

from arena_core.analysis.clustered import Clustering
from arena_core.analysis.figures import Rules
from arena_local.validity.evaluate import INTERVALS, Tally, Truth, run_cell, truth_of
from arena_local.validity.world import Design, FamilySpec, WorldSpec

TARGET_COVERAGE = 0.93
TARGET_FALSE = 0.05
POWER = 0.80
GAPS = (0.01, 0.02, 0.05)
RETURN_BUCKETS = ((2, 3), (4, 7), (8, 12), (13, 10**6))  # matured cohorts behind a return

# Seven families of known skill: two pairs exactly equal, and one leaning YES (its noise is the
# "good" pair's, so "by date" questions that resolve YES early flatter it).
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
OPEN_RULES = Rules(min_weeks=2, min_events=2, min_return_cohorts=2)


@dataclass(frozen=True)
class Plan:
    seasons: int
    weeks: tuple[int, ...] = (2, 4, 8, 13, 26, 52)
    panel_sizes: tuple[int, ...] = (30, 60, 100)
    scheme_weeks: tuple[int, ...] = (8, 13, 26)
    bias_weeks: tuple[int, ...] = (4, 8, 13)
    truth_weeks: int = 1500
    seed: int = 20261125
    workers: int = 1


@dataclass(frozen=True)
class Cell:
    """One design at one season length: what its seasons added up to."""

    design: str
    weeks: int
    scheme: str
    seasons: int
    coverage: dict[str, float | None]  # interval type -> share of shown intervals covering
    intervals: dict[str, int]  # interval type -> intervals shown
    coverage_error: dict[str, float | None]  # Monte-Carlo standard error of each coverage
    false_verdicts: float  # share of seasons with any false verdict on the ranked measure
    rank_coverage: float | None  # share of rank ranges holding the true ranks
    rank_width: float | None
    called: dict[str, float | None]  # true Brier gap -> share of seasons calling it right
    # Return intervals by the matured cohorts behind them: bucket -> [coverage, intervals]
    returns_by_cohorts: dict[str, tuple[float | None, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Bias:
    world: str
    design: str
    weeks: int
    family: str  # the YES-leaning family
    ranked: float  # mean (figure - truth) over matured questions, Brier
    ranked_t: float  # over its Monte-Carlo error: |t| above 2 is a measurable bias
    provisional: float  # the same over everything resolved so far
    provisional_t: float
    worst_ranked_t: float  # the largest |t| of any family's ranked figure


@dataclass(frozen=True)
class Results:
    seed: int
    date: str
    seasons: int
    truth_weeks: int
    scheme: str
    families: list[str]
    cells: list[Cell]
    schemes: list[Cell]
    bias: list[Bias]
    weeks_to_verdict: dict[str, dict[str, int | None]]
    minimum_clusters: int
    minimum_return_cohorts: int

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def _bucket(low: int, high: int) -> str:
    return f"{low}-{high}" if high < RETURN_BUCKETS[-1][1] else f"{low}+"


def _designs(plan: Plan, weeks: int) -> list[Design]:
    return [Design("v1", weeks)] + [
        Design("v1+panel", weeks, panel_size=k, returns=False) for k in plan.panel_sizes
    ]


def label(design: Design) -> str:
    return "v1" if design.methodology == "v1" else f"v1+panel K={design.panel_size}"


def _rate(hits: int, total: int) -> float | None:
    return hits / total if total else None


def _error(rate: float | None, total: int) -> float | None:
    return None if rate is None or total == 0 else math.sqrt(rate * (1 - rate) / total)


def cell_of(design: Design, tally: Tally, scheme: Clustering) -> Cell:
    coverage = {k: tally.coverage(k) for k in INTERVALS}
    returns = {}
    for low, high in RETURN_BUCKETS:
        hits = [c for n, c in tally.return_samples if low <= n <= high]
        returns[_bucket(low, high)] = (_rate(sum(hits), len(hits)), len(hits))
    return Cell(
        design=label(design),
        weeks=design.weeks,
        scheme=scheme.value,
        seasons=tally.seasons,
        coverage=coverage,
        intervals={k: tally.shown[k] for k in INTERVALS},
        coverage_error={k: _error(coverage[k], tally.shown[k]) for k in INTERVALS},
        false_verdicts=tally.false_seasons / tally.seasons,
        rank_coverage=_rate(tally.ranks_covered, tally.ranks_shown),
        rank_width=tally.rank_width / tally.ranks_shown if tally.ranks_shown else None,
        called={str(g): _rate(sum(v), len(v)) for g, v in sorted(tally.called.items())},
        returns_by_cohorts=returns,
    )


@dataclass(frozen=True)
class Job:
    """One cell to run (picklable, so cells run in worker processes)."""

    world: WorldSpec
    design: Design
    truth: Truth
    rules: Rules
    seasons: int
    seed: int


def _run(job: Job) -> Tally:
    return run_cell(
        job.world, job.design, job.truth, rules=job.rules, seasons=job.seasons, seed=job.seed
    )


def _map(jobs: Sequence[Job], workers: int) -> list[Tally]:
    if workers <= 1:
        return [_run(job) for job in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_run, jobs))


def run(plan: Plan, progress: Callable[[str], None] = print) -> Results:
    """Every cell of the plan, then the minimums derived from them."""
    truths = {m: truth_of(WORLD, m, plan.seed, plan.truth_weeks) for m in ("v1", "v1+panel")}
    scheme = Rules().clustering
    jobs = [
        Job(WORLD, d, truths[d.methodology], OPEN_RULES, plan.seasons, plan.seed + w)
        for w in plan.weeks
        for d in _designs(plan, w)
    ]
    cells = [
        cell_of(j.design, t, scheme) for j, t in zip(jobs, _map(jobs, plan.workers), strict=True)
    ]
    for cell in cells:
        progress(summary(cell))
    scheme_jobs = [
        Job(
            WORLD,
            d,
            truths["v1+panel"],
            replace(OPEN_RULES, clustering=s),
            plan.seasons,
            plan.seed + 7 * w,
        )
        for w in plan.scheme_weeks
        for d in [Design("v1+panel", w, panel_size=plan.panel_sizes[0], returns=False)]
        for s in Clustering
    ]
    schemes = [
        cell_of(j.design, t, j.rules.clustering)
        for j, t in zip(scheme_jobs, _map(scheme_jobs, plan.workers), strict=True)
    ]
    for cell in schemes:
        progress(summary(cell))
    bias = _early_resolution(plan, truths)
    for found in bias:
        progress(
            f"{found.world:<20} {found.design:<16} {found.weeks:>2} weeks: YES-leaning Brier bias "
            f"ranked {found.ranked:+.4f} (t {found.ranked_t:+.1f}), provisional "
            f"{found.provisional:+.4f} (t {found.provisional_t:+.1f})"
        )
    clusters = minimum_clusters(cells, plan.weeks)
    return Results(
        seed=plan.seed,
        date=date.today().isoformat(),
        seasons=plan.seasons,
        truth_weeks=plan.truth_weeks,
        scheme=scheme.value,
        families=[f"{f.family_id}: noise {f.noise}, bias {f.bias}" for f in FAMILIES],
        cells=cells,
        schemes=schemes,
        bias=bias,
        weeks_to_verdict={
            label(d): weeks_to_verdict(cells, label(d), clusters) for d in _designs(plan, 1)
        },
        minimum_clusters=clusters,
        minimum_return_cohorts=minimum_return_cohorts(cells),
    )


def weeks_to_verdict(cells: Sequence[Cell], design: str, floor: int) -> dict[str, int | None]:
    """Per true Brier gap, the fewest weeks (from the minimum on) at which the right verdict
    comes in at least 80% of seasons (None: not within the longest season measured)."""
    found: dict[str, int | None] = {}
    mine = sorted((c for c in cells if c.design == design), key=lambda c: c.weeks)
    for gap in GAPS:
        found[str(gap)] = next(
            (c.weeks for c in mine if c.weeks >= floor and (c.called.get(str(gap)) or 0) >= POWER),
            None,
        )
    return found


def _holds(cell: Cell, kind: str) -> bool:
    """Coverage not below 93% beyond Monte-Carlo error (two standard errors)."""
    value, error = cell.coverage[kind], cell.coverage_error[kind]
    return value is None or value + 2 * (error or 0.0) >= TARGET_COVERAGE


def minimum_clusters(cells: Sequence[Cell], weeks: Sequence[int]) -> int:
    """The fewest weeks from which every forecast interval type holds its coverage in every
    design and at every longer season (returns have their own minimum, in cohorts)."""
    kinds = [k for k in INTERVALS if k != "return"]
    ok = [all(_holds(c, k) for c in cells if c.weeks == w for k in kinds) for w in weeks]
    return next((w for i, w in enumerate(weeks) if all(ok[i:])), weeks[-1])


def minimum_return_cohorts(cells: Sequence[Cell]) -> int:
    """The fewest matured cohorts from which return intervals hold their coverage (beyond
    Monte-Carlo error) at every larger number of cohorts, pooled over the cells."""
    ok = []
    for low, high in RETURN_BUCKETS:
        covered = total = 0.0
        for cell in cells:
            rate, count = cell.returns_by_cohorts.get(_bucket(low, high), (None, 0))
            if rate is not None:
                covered += rate * count
                total += count
        rate = covered / total if total else None
        error = math.sqrt(rate * (1 - rate) / total) if rate is not None and total else 0.0
        ok.append(rate is None or rate + 2 * error >= TARGET_COVERAGE)
    return next(
        (low for i, (low, _) in enumerate(RETURN_BUCKETS) if all(ok[i:])), RETURN_BUCKETS[-1][0]
    )


def _early_resolution(plan: Plan, truths: dict[str, Truth]) -> list[Bias]:
    """Bias of the ranked Brier (matured questions) against the provisional one (everything
    resolved so far), on the usual world and on one where long "by date" questions dominate."""
    found = []
    for name, world in (("recorded mix", WORLD), ("long-dated by-date", LONG_DATED)):
        truth = (
            truths["v1"] if world is WORLD else truth_of(world, "v1", plan.seed, plan.truth_weeks)
        )
        jobs = [
            Job(
                world,
                Design("v1", w, returns=False),
                truth,
                OPEN_RULES,
                plan.seasons,
                plan.seed + 11 * w,
            )
            for w in plan.bias_weeks
        ]
        for job, tally in zip(jobs, _map(jobs, plan.workers), strict=True):
            found.append(_bias(name, job.design, tally))
    return found


def _t(values: Sequence[float]) -> tuple[float, float]:
    if len(values) < 2:
        return 0.0, 0.0
    mean = statistics.fmean(values)
    error = statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean / error if error else 0.0


def _bias(world: str, design: Design, tally: Tally) -> Bias:
    family = "yes-leaning"
    ranked, ranked_t = _t(tally.brier_bias.get(family, []))
    provisional, provisional_t = _t(tally.provisional_brier_bias.get(family, []))
    worst = max((abs(_t(v)[1]) for v in tally.brier_bias.values()), default=0.0)
    return Bias(
        world=world,
        design=label(design),
        weeks=design.weeks,
        family=family,
        ranked=ranked,
        ranked_t=ranked_t,
        provisional=provisional,
        provisional_t=provisional_t,
        worst_ranked_t=worst,
    )


def summary(cell: Cell) -> str:
    coverage = " ".join(
        f"{k} {'-' if v is None else f'{100 * v:.1f}'}" for k, v in cell.coverage.items()
    )
    called = " ".join(
        f"{g}: {'-' if v is None else f'{100 * v:.0f}%'}" for g, v in cell.called.items()
    )
    return (
        f"{cell.design:<16} {cell.scheme:<10} {cell.weeks:>2} weeks: coverage {coverage}; false "
        f"verdicts {100 * cell.false_verdicts:.1f}%; ranks {_pct(cell.rank_coverage)} (width "
        f"{cell.rank_width or 0:.1f}); called {called}"
    )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"
