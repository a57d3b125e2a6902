"""The panel's validity and power on the realistic world: seasons with a known truth, analysed
exactly as ``arena analyze`` analyses a dataset, read at several weeks of the same season.

The truth of every figure is its mean over many long seasons of the same world and panel plan
(``truth.py``: a family's Brier, peer score and skill against the market; every pair's
difference follows).

Per season and reading week the tally records: whether each interval shown covers the truth
(and each pair's difference rebuilt at 95%), whether any verdict is false (an equal pair
called, or an order reversed) among the secondary pairs and among the primary comparisons,
which comparisons with a true Brier gap near 0.02 are called the right way, and, for
"decided by week W" promises, whether the pair is decided when the same season is read at W.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arena_core.analysis.board import MARKET, Board, analyze, pairs_only
from arena_core.analysis.figures import PEER, Figure, Rules
from arena_core.analysis.pairs import PairResult
from arena_core.analysis.primary import BestVerdict, Primary
from arena_core.analysis.rows import Forecast
from arena_core.analysis.tdist import critical_value
from arena_local.validity.fitted import Fitted
from arena_local.validity.realistic import (
    ENSEMBLE,
    LLM,
    PanelPlan,
    Season,
    WorldAssumptions,
    simulate,
)
from arena_local.validity.truth import Lineups, groups, mixed

GAP = 0.02
TOLERANCE = 0.25  # a pair "has a 0.02 gap" within 25% of it (0.015 to 0.025)


@dataclass
class Tally:
    """What many seasons of one cell (a plan read at one week) add up to."""

    seasons: int = 0
    shown: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    covered: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    false: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # per scheme
    called: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))  # per scheme
    promised: list[tuple[int, int]] = field(default_factory=list)  # (W, decided by W)
    equal_promised: list[int] = field(default_factory=list)  # per equal pair: promised?
    asked: int = 0
    reasked: int = 0

    def coverage(self, kind: str) -> float | None:
        return self.covered[kind] / self.shown[kind] if self.shown[kind] else None

    def power(self, scheme: str) -> float | None:
        found = self.called.get(scheme, [])
        return sum(found) / len(found) if found else None


def _cover(tally: Tally, kind: str, shown: Figure | None, truth: float | None) -> None:
    if shown is None or truth is None or shown.low is None or shown.high is None:
        return
    tally.shown[kind] += 1
    tally.covered[kind] += shown.low <= truth <= shown.high


def board_of(rows: Sequence[Forecast], world: WorldAssumptions, rules: Rules) -> Board:
    models = {f.family_id for f in world.forecasters if f.kind == LLM}
    present = {r.family_id for r in rows}
    return analyze(
        rows,
        [],
        [],
        rankable=models & present,
        compared=(models | {ENSEMBLE}) & present,
        measure=PEER,
        rules=rules,
        peer_market=True,
        calibrate=False,
    )


def weeks_of(rows: Sequence[Forecast]) -> dict[str, list[int]]:
    """Each forecaster's matured forecasts' run weeks, the market's (one forecast per question,
    not in ``rows``) included: without it the market's truth was the full lineup's whatever
    weeks its figure spanned."""
    found: dict[str, list[int]] = defaultdict(list)
    questions: set[tuple[str, str]] = set()
    for row in rows:
        if row.matured:
            week = int(row.week[1:])
            found[row.family_id].append(week)
            if row.question not in questions:
                questions.add(row.question)
                found[MARKET].append(week)
    for weeks in found.values():
        weeks.sort()  # ``mixed`` counts the early ones by bisection
    return found


def _pair_truth(
    truth: Lineups, kind: str, pair: PairResult | _Named, weeks: Mapping[str, list[int]]
) -> float | None:
    """The true A - B over what they share (from the later of their first weeks on)."""
    start = max(weeks.get(pair.family_a, [0])[0], weeks.get(pair.family_b, [0])[0])
    mine = weeks.get(pair.family_a, [])
    shared = mine[bisect.bisect_left(mine, start) :]  # sorted: those from ``start`` on
    a = mixed(truth, kind, pair.family_a, shared)
    b = mixed(truth, kind, pair.family_b, shared)
    return None if a is None or b is None else a - b


def score(
    tally: Tally, board: Board, truth: Lineups, rows: Sequence[Forecast], world: WorldAssumptions
) -> None:
    """Add one analysed season, read at one week, to the tally."""
    tally.seasons += 1
    weeks = weeks_of(rows)
    for family, result in board.families.items():
        if family == MARKET:
            continue
        mine = weeks.get(family, [])
        _cover(tally, "brier", result.brier, mixed(truth, "brier", family, mine))
        _cover(tally, "skill", result.skill, mixed(truth, "skill", family, mine))
        _cover(tally, "peer", result.peer, mixed(truth, "peer", family, mine))
    equal = {frozenset((a, b)) for g in groups(world) for a in g for b in g if a < b}
    wrong = False
    for pair in [*board.pairs, *board.brier_pairs]:
        kind = "peer" if pair.measure == PEER.name else "brier"
        true = _pair_truth(truth, kind, pair, weeks)
        difference = pair.difference
        if true is None or difference is None or difference.se == 0.0 or not difference.shown:
            continue
        if frozenset((pair.family_a, pair.family_b)) in equal:
            true = 0.0
        half = critical_value(difference.df, 0.05) * difference.se
        tally.shown["pair95"] += 1
        tally.covered["pair95"] += abs(difference.estimate - true) <= half
        _cover(tally, "pair", difference, true)
        if pair.measure != board.measure.name:
            continue
        wrong |= _false(pair, true, board.measure.lower_is_better)
        gap = _pair_truth(truth, "brier", pair, weeks)
        if gap is not None and MARKET not in (pair.family_a, pair.family_b) and _near(gap):
            better = pair.family_a if gap < 0 else pair.family_b
            late = _late(weeks, pair.family_a) or _late(weeks, pair.family_b)
            tally.called["pairs, late" if late else "pairs"].append(int(pair.better() == better))
    tally.false["pairs"] += wrong
    if getattr(board, "primary", None) is not None:  # boards before issue 34 have none
        _score_primary(tally, board, truth, weeks, equal)


def _late(weeks: Mapping[str, list[int]], family: str) -> bool:
    """Whether ``family`` joined after the first run week of the season read: the target is
    for families from the first cohort (a late one is reported apart)."""
    first = min((w[0] for w in weeks.values() if w), default=0)  # sorted: w[0] is the least
    return (weeks.get(family) or [first])[0] > first


def _true_pair(  # noqa: PLR0917 - a pair and what its truth needs
    truth: Lineups,
    kind: str,
    a: str,
    b: str,
    weeks: Mapping[str, list[int]],
    equal: set[frozenset[str]],
) -> float | None:
    if frozenset((a, b)) in equal:
        return 0.0
    return _pair_truth(truth, kind, _Named(a, b), weeks)


@dataclass(frozen=True)
class _Named:
    family_a: str
    family_b: str


def _score_primary(
    tally: Tally,
    board: Board,
    truth: Lineups,
    weeks: Mapping[str, list[int]],
    equal: set[frozenset[str]],
) -> None:
    """The primary comparisons: each model against the market, and which could be the best."""
    primary: Primary | None = getattr(board, "primary", None)
    assert primary is not None
    kind = "peer" if board.measure is PEER else "brier"
    sign = -1.0 if board.measure.lower_is_better else 1.0
    wrong = {"market": False, "best": False}
    for pair in primary.versus_market:
        true = _true_pair(truth, kind, pair.family_a, MARKET, weeks, equal)
        if true is None or pair.difference is None:
            continue
        if pair.difference.shown:
            _cover(tally, "market", pair.difference, true)
        wrong["market"] |= _false(pair, true, board.measure.lower_is_better)
        gap = _true_pair(truth, "brier", pair.family_a, MARKET, weeks, equal)
        if gap is not None and _near(gap):
            better = pair.family_a if gap < 0 else MARKET
            _called(tally, "market", _late(weeks, pair.family_a), int(pair.better() == better))
    families = primary.families
    for best in primary.best:
        others = [f for f in families if f != best.family_id]
        thetas = [_true_pair(truth, kind, best.family_id, o, weeks, equal) for o in others]
        gaps = [_true_pair(truth, "brier", best.family_id, o, weeks, equal) for o in others]
        if not others or any(t is None for t in thetas) or any(g is None for g in gaps):
            continue
        theta = min(sign * (t or 0.0) for t in thetas)  # positive: better than all others
        if best.low is not None and best.high is not None:
            tally.shown["best"] += 1
            tally.covered["best"] += best.low <= theta <= best.high
        if best.verdict is BestVerdict.NOT_BEST and theta > 0.0:
            wrong["best"] = True
        if best.verdict is BestVerdict.BEST and theta <= 0.0:
            wrong["best"] = True
        gap = max(g or 0.0 for g in gaps)  # its Brier above the best of the others
        if _near(gap):
            hit = int(best.verdict is BestVerdict.NOT_BEST)
            _called(tally, "best", _late(weeks, best.family_id), hit)
    for scheme, found in wrong.items():
        tally.false[scheme] += found
    tally.false["primary"] += wrong["market"] or wrong["best"]


def _called(tally: Tally, scheme: str, late: bool, hit: int) -> None:
    """One primary comparison with a true 0.02 gap: in its scheme and in the pooled primary
    family, or, for a family that joined late, apart."""
    if late:
        tally.called["primary, late"].append(hit)
        return
    tally.called[scheme].append(hit)
    tally.called["primary"].append(hit)


def _near(gap: float) -> bool:
    """A true Brier gap the target speaks of: 0.02, within 25%."""
    return abs(abs(gap) - GAP) <= TOLERANCE * GAP


def _false(pair: PairResult, true: float, lower_is_better: bool) -> bool:
    winner = pair.better()
    if winner is None:
        return False
    if true == 0.0:
        return True
    sign = 1.0 if lower_is_better else -1.0
    truly = pair.family_a if sign * true < 0 else pair.family_b
    return winner != truly


@dataclass(frozen=True)
class Cell:
    plan: str
    weeks: int
    seasons: int
    coverage: dict[str, float | None]
    shown: dict[str, int]
    false: dict[str, float]
    power: dict[str, float | None]
    compared: dict[str, int]  # comparisons with a true 0.02 gap, per scheme
    reasked: float  # share of questions whose market was asked before

    @classmethod
    def of(cls, plan: str, weeks: int, tally: Tally) -> Cell:
        schemes = sorted(set(tally.called) | set(tally.false))
        return cls(
            plan=plan,
            weeks=weeks,
            seasons=tally.seasons,
            coverage={k: tally.coverage(k) for k in sorted(tally.shown)},
            shown=dict(tally.shown),
            false={s: tally.false[s] / tally.seasons for s in schemes},
            power={s: tally.power(s) for s in schemes},
            compared={s: len(tally.called.get(s, [])) for s in schemes},
            reasked=tally.reasked / tally.asked if tally.asked else 0.0,
        )


def run_plan(
    world: WorldAssumptions,
    plan: PanelPlan,
    fitted: Fitted,
    truth: Lineups,
    *,
    rules: Rules,
    reads: Sequence[int],
    seasons: int,
    seed: int,
) -> dict[int, Tally]:
    """Seasons of ``max(reads)`` weeks, each read at every week of ``reads``."""
    tallies = {at: Tally() for at in reads}
    for index in range(seasons):
        season = simulate(world, plan, fitted, max(reads), seed * 1_000_003 + index)
        for at in reads:
            rows = season.read(at, first_asks=plan.first_asks)
            board = board_of(rows, world, rules)
            score(tallies[at], board, truth, rows, world)
            tallies[at].asked += sum(1 for q in season.rows if q[0].run < at)
        _count_reasked(tallies, season, reads)
    return tallies


def _count_reasked(tallies: dict[int, Tally], season: Season, reads: Sequence[int]) -> None:
    seen: set[str] = set()
    again = dict.fromkeys(reads, 0)
    for question in season.rows:
        first = question[0]
        if first.market.market_id in seen:
            for at in reads:
                again[at] += first.run < at
        seen.add(first.market.market_id)
    for at in reads:
        tallies[at].reasked += again[at]


def merged(tallies: Sequence[Tally]) -> Tally:
    """One tally of several (the same cell's seasons run in parts)."""
    total = Tally()
    for tally in tallies:
        total.seasons += tally.seasons
        for kind, count in tally.shown.items():
            total.shown[kind] += count
        for kind, count in tally.covered.items():
            total.covered[kind] += count
        for scheme, count in tally.false.items():
            total.false[scheme] += count
        for scheme, calls in tally.called.items():
            total.called[scheme] += calls
        total.promised += tally.promised
        total.equal_promised += tally.equal_promised
        total.asked += tally.asked
        total.reasked += tally.reasked
    return total


@dataclass
class Promises:
    """ "About N more weeks" against what happened: per promise (a pair undecided at week w told
    it would be decided by week W = w + N, W within the season), whether it was decided when
    the same season was read at W; per equal pair and reading week, whether it was promised."""

    kept: list[tuple[int, int, int]] = field(default_factory=list)  # (w, W, decided by W)
    equal: list[tuple[int, int]] = field(default_factory=list)  # (w, promised)

    def share_kept(self) -> float | None:
        return sum(k for *_, k in self.kept) / len(self.kept) if self.kept else None

    def share_equal_promised(self) -> float | None:
        return sum(p for _, p in self.equal) / len(self.equal) if self.equal else None


def check_promises(
    world: WorldAssumptions,
    plan: PanelPlan,
    fitted: Fitted,
    *,
    rules: Rules,
    first: int,
    last: int,
    seasons: int,
    seed: int,
) -> Promises:
    """Seasons of ``last`` weeks, read at every week from ``first``: the ranked measure's
    pairs as the site computes them (``board.pairs_only``), and each promise checked."""
    models = {f.family_id for f in world.forecasters if f.kind == LLM}
    equal = {frozenset((a, b)) for g in groups(world) for a in g for b in g if a < b}
    found = Promises()
    for index in range(seasons):
        season = simulate(world, plan, fitted, last, seed * 1_000_003 + index)
        verdicts: dict[int, dict[frozenset[str], bool]] = {}
        promised: list[tuple[int, int, frozenset[str]]] = []
        for at in range(first, last + 1):
            rows = season.read(at, first_asks=plan.first_asks)
            present = {r.family_id for r in rows}
            pairs = pairs_only(
                rows,
                rankable=models & present,
                compared=(models | {ENSEMBLE}) & present,
                measure=PEER,
                rules=rules,
                peer_market=True,
            )
            verdicts[at] = {frozenset((p.family_a, p.family_b)): p.decided for p in pairs}
            for pair in pairs:
                key = frozenset((pair.family_a, pair.family_b))
                if key in equal and pair.difference is not None and pair.difference.shown:
                    found.equal.append((at, int(pair.more_weeks is not None)))
                if pair.more_weeks is not None and at + pair.more_weeks <= last:
                    promised.append((at, at + pair.more_weeks, key))
        for at, by, key in promised:
            found.kept.append((at, by, int(verdicts[by].get(key, False))))
    return found


def merged_promises(found: Sequence[Promises]) -> Promises:
    total = Promises()
    for part in found:
        total.kept += part.kept
        total.equal += part.equal
    return total
