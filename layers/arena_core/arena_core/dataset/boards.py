"""One leaderboard per methodology, computed from the published tables alone.

The site and ``arena analyze`` both call ``build`` with the CSV of the input tables
(``forecasts``, ``family_returns``, ``position_returns``, ``families`` and, under v1+panel,
``panel_scores`` and ``coherence``): the statistics come from ``arena_core.analysis``; what
this module adds is arithmetic on the same rows (P/L, trades, win rate) and who each family is.
Results are never aggregated across methodology versions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum

from arena_core.analysis import dataset
from arena_core.analysis.board import MARKET, Board, analyze, with_returns
from arena_core.analysis.dataset import CohortRecord, Family
from arena_core.analysis.families import FamilyResult
from arena_core.analysis.figures import BRIER, PEER, Rules
from arena_core.dataset.board_inputs import V1, V1_PANEL, Inputs, by_family, read_inputs
from arena_core.dataset.board_parts import (
    GROUPS,
    BetCounts,
    Keep,
    bets_part,
    compute_only,
    returns_part,
)
from arena_core.domain.coherence import CoherenceSummary, coherence_summary
from arena_core.domain.money import ZERO

INPUT_TABLES = ("forecasts", "family_returns", "position_returns", "families")
PANEL_INPUT_TABLES = ("panel_scores", "coherence")
ENSEMBLE = "ensemble"
REFERENCE_NAMES = {ENSEMBLE: "Ensemble of the models", MARKET: "Market price at capture"}


class Standing(StrEnum):
    RANKED = "ranked"
    PROVISIONAL = "provisional"  # below the minimum sample: no rank, no interval yet
    UNSCORED = "unscored"  # nothing scored: never ranked
    REFERENCE = "reference"  # a baseline, the ensemble or the market


@dataclass(frozen=True)
class Trading:
    """A family's v1 trading columns over the board's cohorts."""

    cohorts: int
    total_pnl: Decimal
    trades: int
    resolved_bets: int
    win_rate: Decimal | None


@dataclass(frozen=True)
class Row:
    """A leaderboard row: who, where it stands, and its figures (``result``: on the bets under
    v1, on the panel under v1+panel)."""

    family_id: str
    display_name: str
    kind: str  # llm, baseline, ensemble or market
    stand_in: bool
    standing: Standing
    result: FamilyResult | None
    bets: FamilyResult | None  # the v1 figures of its bets (under v1, the same as result)
    trading: Trading | None
    coherence: CoherenceSummary | None = None
    missing: int = 0  # v1+panel: forecasts filled in with the market's price
    clipped: int = 0

    @property
    def rank(self) -> int | None:
        return self.result.rank if self.result else None

    @property
    def rank_range(self) -> tuple[int, int] | None:
        return self.result.rank_range if self.result else None

    @property
    def tied_with_leader(self) -> bool:
        return self.result.tied_with_leader if self.result else False


@dataclass
class BoardResult:
    """One methodology's leaderboard: its rows in order and the analyses behind them."""

    methodology: str
    rules: Rules
    rows: list[Row]
    bets: Board  # the scored bets (v1's forecasts)
    panel: Board | None = None  # v1+panel: what it ranks on
    cohorts: list[str] = field(default_factory=list)
    # What its kept statistics (the forecasts' and the returns') were computed from, when
    # everything but the live cohorts' figures is kept (None: the panel's are computed anew).
    key: str | None = None

    @property
    def shown(self) -> Board:
        """What the pairwise page, calibration and breakdowns show: the ranked analysis."""
        return self.panel or self.bets

    def row(self, family_id: str) -> Row | None:
        return next((r for r in self.rows if r.family_id == family_id), None)


def _trading(bets: BetCounts, records: Sequence[CohortRecord]) -> Trading:
    return Trading(
        cohorts=len(records),
        total_pnl=sum((r.total_pnl for r in records), ZERO),
        trades=sum(r.trades for r in records),
        resolved_bets=bets.resolved,
        win_rate=Decimal(bets.won) / bets.resolved if bets.resolved else None,
    )


def _standing(kind: str, result: FamilyResult | None) -> Standing:
    if kind != "llm":
        return Standing.REFERENCE
    if result is not None and result.rank is not None:
        return Standing.RANKED
    return Standing.PROVISIONAL if result and result.resolved else Standing.UNSCORED


def _order(rows: Sequence[Row], measure_lower: bool) -> list[Row]:
    """Ranked families by rank; then provisional and unscored ones by their provisional figure;
    then the reference rows (baselines, the ensemble, the market)."""
    place = {Standing.RANKED: 0, Standing.PROVISIONAL: 1, Standing.UNSCORED: 2}
    reference = {"baseline": 0, ENSEMBLE: 1, MARKET: 2}

    def key(row: Row) -> tuple[int, int, int, float, str]:
        value = None
        if row.result is not None:
            figure = row.result.ranked(PEER if not measure_lower else BRIER)
            value = figure.estimate if figure else None
        sort = (value if measure_lower else -value) if value is not None else float("inf")
        return (
            place.get(row.standing, 3),
            row.rank or 0,
            reference.get(row.kind, 0),
            sort,
            row.family_id,
        )

    return sorted(rows, key=key)


def build(
    tables: Mapping[str, bytes],
    methodology: str,
    rules: Rules,
    *,
    digests: Mapping[str, str] | None = None,
    records: Callable[[], list[dataset.CohortRecord]] | None = None,
    keep: Keep = compute_only,
) -> BoardResult:
    """The methodology's leaderboard from the CSV of its input tables. ``digests``: the tables'
    digests where known (a table is then read only if its statistics are not kept: ``tables``
    may compute its CSV on demand); ``records``: the rows of ``family_returns``, as
    ``read_inputs`` takes them; ``keep``: where the statistics are kept between calls (the
    publication's memo; the result is the same either way)."""
    part, bets_key = bets_part(tables, methodology, rules, digests or {}, keep)
    inputs = read_inputs(tables, methodology, bets=False, positions=False, records=records)
    models = {f.family_id for f in inputs.families if f.kind == "llm"}
    returns = [r.result for r in inputs.records]
    statistics, returns_key = returns_part(
        tables, methodology, board=part.board, returns=returns, models=models,
        digests=digests or {}, keep=keep,
    )  # fmt: skip
    bets = with_returns(
        part.board,
        returns,
        [],
        rankable=models,
        compared=models,
        calibrate=methodology == V1,
        statistics=statistics,
    )
    records_of = by_family([(r.result.family_id, r) for r in inputs.records])
    cohorts = sorted({r.result.cohort_id for r in inputs.records})
    counts = part.counts
    if methodology != V1_PANEL:
        rows = [
            _v1_row(f, bets, counts.get(f.family_id, BetCounts()), records_of.get(f.family_id, []))
            for f in inputs.families
        ]
        rows.append(_market_row(bets, None))
        key = hashlib.sha256(f"{bets_key}\0{returns_key}".encode()).hexdigest()
        return BoardResult(methodology, rules, _order(rows, True), bets, cohorts=cohorts, key=key)
    panel = _panel_board(inputs, rules)
    trades = by_family(inputs.coherence)
    rows = []
    for family in inputs.families:
        mine = [e for e in inputs.panel if e.forecast.family_id == family.family_id]
        result = panel.families.get(family.family_id)
        rows.append(
            Row(
                family_id=family.family_id,
                display_name=family.display_name,
                kind=family.kind,
                stand_in=family.stand_in,
                standing=_standing(family.kind, result),
                result=result,
                bets=bets.families.get(family.family_id),
                trading=_trading(
                    counts.get(family.family_id, BetCounts()),
                    records_of.get(family.family_id, []),
                ),
                coherence=coherence_summary(trades.get(family.family_id, [])),
                missing=sum(e.missing for e in mine),
                clipped=sum(e.clipped for e in mine),
            )
        )
    for reference in (ENSEMBLE, MARKET):
        result = panel.families.get(reference)
        if result is not None:
            rows.append(_market_row(panel, reference))
    return BoardResult(methodology, rules, _order(rows, False), bets, panel, cohorts)


def _panel_board(inputs: Inputs, rules: Rules) -> Board:
    models = {e.forecast.family_id for e in inputs.panel if e.scored_by == "llm"}
    compared = models | {e.forecast.family_id for e in inputs.panel if e.scored_by == ENSEMBLE}
    return analyze(
        [e.forecast for e in inputs.panel],
        [],
        [],
        rankable=models,
        compared=compared,
        measure=PEER,
        rules=rules,
        peer_market=True,
        groups=GROUPS,
    )


def _v1_row(family: Family, board: Board, bets: BetCounts, records: Sequence[CohortRecord]) -> Row:
    result = board.families.get(family.family_id)
    return Row(
        family_id=family.family_id,
        display_name=family.display_name,
        kind=family.kind,
        stand_in=family.stand_in,
        standing=_standing(family.kind, result),
        result=result,
        bets=result,
        trading=_trading(bets, records),
    )


def _market_row(board: Board, reference: str | None) -> Row:
    """A computed reference row: the market's price (at bet time under v1, at capture under
    v1+panel) or the models' ensemble."""
    family = reference or MARKET
    name = REFERENCE_NAMES[family] if reference else "Market price at bet time"
    return Row(
        family_id=family,
        display_name=name,
        kind=family,
        stand_in=False,
        standing=Standing.REFERENCE,
        result=board.families.get(family),
        bets=None,
        trading=None,
    )
