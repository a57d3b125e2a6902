"""Simulated seasons with a known truth: the world the validity benchmark checks the analysis on.

Each week new Polymarket-like *events* are listed, most with one market, some with several
mutually exclusive ones (the candidates of one election: exactly one wins). A market stays in
the universe from its listing until it resolves, so it is forecast in several weeks. Its true
probability is latent; the market's price and every family's forecast are noisy readings of it
in logit space:

- a family has a skill (its noise) and may lean (a bias toward YES); part of its error on a
  market is a lasting view, repeated every week it forecasts that market, and each week it has
  a shift of its own (a bad week);
- outcomes of singletons that resolve in the same week share a shock nobody foresaw;
- "by date" questions resolve YES as soon as the event happens (at a uniform time before their
  end) and NO only at their end, so what resolves early leans YES.

Under v1 every family bets on the markets it disagrees most with the price on (its forecasts are
unpaired); under v1+panel every family states a probability for the same K markets a week,
peer-scored among the models. Each cohort bets for five weeks; its return is kept once every
market it bet on has resolved (completed). The season is read as the published tables would
hold it at the end of its last week: only resolved forecasts, each marked matured when its
scheduled end had passed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace

from arena_core.analysis.rows import CohortReturn, Forecast, PositionPnl
from arena_core.scoring.metaculus import baseline_score_binary

P_MIN, P_MAX = 0.001, 0.999
PANEL_HORIZON_WEEKS = 60 / 7  # the panel draws markets closing within 60 days
COHORT_WEEKS = 5  # a cohort bets at five weekly runs
WARM_UP_WEEKS = 10  # events listed before the season, so week 0 sees a full universe


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def clip(p: float) -> float:
    return min(max(p, P_MIN), P_MAX)


@dataclass(frozen=True)
class FamilySpec:
    family_id: str
    noise: float  # sd of its logit error: lower is more skilled
    bias: float = 0.0  # logit shift toward YES
    persistence: float = 0.5  # share of its error variance that is a lasting view of a market
    week_shift: float = 0.15  # sd of its weekly logit shift


@dataclass(frozen=True)
class WorldSpec:
    families: tuple[FamilySpec, ...]
    new_events: int = 40  # events listed a week
    multi_share: float = 0.3  # events with 2-6 mutually exclusive markets
    by_date_share: float = 0.3  # singletons worded "by <date>"
    longest_weeks: int = 10  # an event ends 1-10 weeks after it is listed
    base: float = -0.6  # mean logit of a singleton's true probability (P(YES) about 0.35)
    spread: float = 1.5
    market_noise: float = 0.45
    outcome_shock: float = 0.4  # sd of the logit shock shared by a category's resolution week
    categories: int = 6
    bets: int = 8  # v1: markets a family bets on a week
    attention: int = 60  # markets a family looks at a week (v1 and its bets)


@dataclass(frozen=True)
class Design:
    methodology: str  # "v1" or "v1+panel"
    weeks: int
    panel_size: int = 30
    returns: bool = True  # simulate cohorts' bets and returns too


@dataclass
class _Market:
    market_id: str
    event_id: str
    listed: int
    end: float  # the scheduled end, in weeks
    resolves: float  # when it resolves (before ``end`` for an early YES)
    truth: float  # its latent probability of YES
    outcome: int


@dataclass
class Season:
    forecasts: list[Forecast] = field(default_factory=list)
    returns: list[CohortReturn] = field(default_factory=list)
    positions: list[PositionPnl] = field(default_factory=list)


def _events(
    spec: WorldSpec, rng: random.Random, week: int, shocks: dict[tuple[int, int], float]
) -> list[_Market]:
    markets = []
    for index in range(spec.new_events):
        event_id = f"e{week}.{index}"
        end = week + rng.randint(1, spec.longest_weeks) + rng.random()
        if rng.random() < spec.multi_share:
            weights = [rng.expovariate(1.0) for _ in range(rng.randint(2, 6))]
            total = sum(weights)
            shares = [w / total for w in weights]
            winner = rng.choices(range(len(shares)), weights=shares)[0]
            for i, share in enumerate(shares):
                truth = min(max(share, 0.01), 0.99)
                markets.append(
                    _Market(f"{event_id}.{i}", event_id, week, end, end, truth, int(i == winner))
                )
            continue
        truth = sigmoid(spec.base + spec.spread * rng.gauss(0.0, 1.0))
        category = index % spec.categories
        shock = shocks.setdefault((category, int(end)), rng.gauss(0.0, spec.outcome_shock))
        outcome = int(rng.random() < sigmoid(logit(truth) + shock))
        resolves = end
        if outcome and rng.random() < spec.by_date_share:
            resolves = week + rng.random() * (end - week)  # it happened: resolved at once
        markets.append(_Market(f"{event_id}.0", event_id, week, end, resolves, truth, outcome))
    return markets


class _Views:
    """Each family's lasting view of each market, drawn on first use."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._views: dict[tuple[str, str], float] = {}

    def of(self, family: FamilySpec, market_id: str) -> float:
        key = (family.family_id, market_id)
        if key not in self._views:
            self._views[key] = self._rng.gauss(0.0, 1.0)
        return self._views[key]


def _forecast(
    family: FamilySpec, market: _Market, shift: float, views: _Views, rng: random.Random
) -> float:
    lasting = math.sqrt(family.persistence) * views.of(family, market.market_id)
    fresh = math.sqrt(1.0 - family.persistence) * rng.gauss(0.0, 1.0)
    error = family.noise * (lasting + fresh)
    return clip(sigmoid(logit(market.truth) + family.bias + shift + error))


def _row(
    family_id: str, week: int, market: _Market, *, p: float, price: float, read_at: float
) -> Forecast:
    return Forecast(
        family_id=family_id,
        agent_id=f"c{week:04d}.{family_id}",
        cohort_id=f"c{week:04d}",
        market_id=market.market_id,
        event_id=market.event_id,
        week=f"w{week:04d}",
        p_yes=p,
        market_p_yes=price,
        outcome=market.outcome,
        matured=market.end <= read_at,
    )


def _with_peer(rows: list[Forecast]) -> list[Forecast]:
    """One question's rows with their Metaculus peer (among all of them) and baseline scores."""
    logs = [math.log(r.p_yes if r.outcome else 1.0 - r.p_yes) for r in rows]
    total, count = math.fsum(logs), len(rows)
    return [
        replace(
            row,
            peer=100.0 * (log - (total - log) / (count - 1)) if count > 1 else 0.0,
            baseline=baseline_score_binary(row.p_yes, row.outcome),
        )
        for row, log in zip(rows, logs, strict=True)
    ]


@dataclass
class _Week:
    """What one weekly run sees: the open markets and their prices; each family's beliefs are
    drawn as it looks at a market (a family looks at ``attention`` random markets under v1)."""

    index: int
    markets: list[_Market]
    prices: dict[str, float]
    shifts: dict[str, float]
    views: _Views
    rng: random.Random
    beliefs: dict[tuple[str, str], float] = field(default_factory=dict)

    def belief(self, family: FamilySpec, market: _Market) -> float:
        key = (family.family_id, market.market_id)
        if key not in self.beliefs:
            shift = self.shifts[family.family_id]
            self.beliefs[key] = _forecast(family, market, shift, self.views, self.rng)
        return self.beliefs[key]

    def edge(self, family: FamilySpec, market: _Market) -> float:
        return abs(self.belief(family, market) - self.prices[market.market_id])


def _v1_rows(spec: WorldSpec, run: _Week, read_at: float) -> list[tuple[Forecast, _Market]]:
    """Each family bets on the markets it disagrees most with the price on."""
    rows = []
    for family in spec.families:
        for market in _largest_edges(spec, run, family, spec.bets):
            p, price = run.belief(family, market), run.prices[market.market_id]
            rows.append(
                (
                    _row(family.family_id, run.index, market, p=p, price=price, read_at=read_at),
                    market,
                )
            )
    return rows


def _largest_edges(spec: WorldSpec, run: _Week, family: FamilySpec, count: int) -> list[_Market]:
    """The ``count`` markets, of those the family looks at this week, it disagrees most with the
    price on (the markets it looks at are the same for its bets and its forecasts)."""
    seen = random.Random(f"{family.family_id}:{run.index}:{len(run.markets)}")
    looked = seen.sample(run.markets, min(spec.attention, len(run.markets)))
    return sorted(looked, key=lambda m: (-run.edge(family, m), m.market_id))[:count]


def _panel_rows(
    spec: WorldSpec, design: Design, run: _Week, read_at: float, rng: random.Random
) -> list[tuple[Forecast, _Market]]:
    """Every family forecasts the same K markets closing within 60 days, peer-scored."""
    eligible = [m for m in run.markets if m.end <= run.index + PANEL_HORIZON_WEEKS]
    panel = rng.sample(eligible, min(design.panel_size, len(eligible)))
    rows = []
    for market in panel:
        price = run.prices[market.market_id]
        question = [
            _row(
                f.family_id,
                run.index,
                market,
                p=run.belief(f, market),
                price=price,
                read_at=read_at,
            )
            for f in spec.families
        ]
        rows += [(r, market) for r in _with_peer(question)]
    return rows


Ledger = dict[tuple[str, int], list[tuple[_Market, int, float]]]  # (market, week, pnl) per bet
STAKE = 400.0  # dollars at full conviction
EDGE_BETS = 3  # a cohort's bets a run: its largest edges


def _bets(spec: WorldSpec, run: _Week, ledger: Ledger) -> None:
    """Every live cohort of every family bets on its three largest edges against the price;
    each bet's P/L is kept with the time its market resolves."""
    cohorts = [c for c in range(run.index - COHORT_WEEKS + 1, run.index + 1) if c >= 0]
    for family in spec.families:
        for market in _largest_edges(spec, run, family, EDGE_BETS):
            p, price = run.belief(family, market), run.prices[market.market_id]
            stake = STAKE * min(1.0, 4.0 * abs(p - price))
            if p > price:
                pnl = stake / price * market.outcome - stake
            else:
                pnl = stake / (1.0 - price) * (1 - market.outcome) - stake
            for cohort in cohorts:
                ledger.setdefault((family.family_id, cohort), []).append((market, run.index, pnl))


def _returns(
    ledger: Ledger, weeks: int, read_at: float
) -> tuple[list[CohortReturn], list[PositionPnl]]:
    """Each cohort's return % on its resolved bets, completed (and matured) once its runs are
    over and the scheduled end of every market it bet on has passed; the positions (bets) of
    completed cohorts with their P/L."""
    found, positions = [], []
    for (family_id, cohort), bets in sorted(ledger.items()):
        realised = math.fsum(pnl for market, _, pnl in bets if market.resolves <= read_at)
        done = cohort + COHORT_WEEKS <= weeks and all(m.end <= read_at for m, _, _ in bets)
        cohort_id = f"c{cohort:04d}"
        found.append(CohortReturn(family_id, cohort_id, f"w{cohort:04d}", realised / 100.0, done))
        if done:
            positions += [
                PositionPnl(
                    family_id, cohort_id, m.market_id, m.event_id, f"w{week:04d}", pnl / 100
                )
                for m, week, pnl in bets
            ]
    return found, positions


def simulate(spec: WorldSpec, design: Design, seed: int, *, until: float | None = None) -> Season:
    """One season of ``design.weeks`` weekly runs, read at ``until`` weeks (default: the end of
    its last week); ``until=math.inf`` reads it once everything has resolved (the truth)."""
    rng = random.Random(seed)
    views = _Views(random.Random(rng.getrandbits(64)))
    shocks: dict[tuple[int, int], float] = {}
    read_at = design.weeks if until is None else until
    listed: list[_Market] = []
    for week in range(-WARM_UP_WEEKS, 0):
        listed += _events(spec, rng, week, shocks)
    season = Season()
    ledger: Ledger = {}
    for week in range(design.weeks):
        listed = [m for m in listed + _events(spec, rng, week, shocks) if m.resolves > week]
        prices = {m.market_id: _price(spec, m, rng) for m in listed}
        shifts = {f.family_id: rng.gauss(0.0, f.week_shift) for f in spec.families}
        run = _Week(week, listed, prices, shifts, views, rng)
        if design.returns:
            _bets(spec, run, ledger)
        if design.methodology == "v1":
            rows = _v1_rows(spec, run, read_at)
        else:
            rows = _panel_rows(spec, design, run, read_at, rng)
        season.forecasts += [row for row, market in rows if market.resolves <= read_at]
    season.returns, season.positions = _returns(ledger, design.weeks, read_at)
    return season


def _price(spec: WorldSpec, market: _Market, rng: random.Random) -> float:
    return clip(sigmoid(logit(market.truth) + rng.gauss(0.0, spec.market_noise)))
