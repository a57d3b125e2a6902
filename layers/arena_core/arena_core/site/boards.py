"""One leaderboard per methodology, computed from the published tables alone.

The site and ``arena analyze`` both call ``build`` with the CSV of the input tables
(``forecasts``, ``family_returns``, ``position_returns``, ``families`` and, under v1+panel,
``panel_scores`` and ``coherence``): the statistics come from ``arena_core.analysis``; what
this module adds is arithmetic on the same rows (P/L, trades, win rate) and who each family is.
Results are never aggregated across methodology versions.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import TypeVar

from arena_core.analysis import dataset, stored
from arena_core.analysis.board import (
    MARKET,
    Board,
    ReturnStatistics,
    analyze,
    analyze_forecasts,
    return_names,
    return_statistics,
    with_returns,
)
from arena_core.analysis.clustered import Clustering
from arena_core.analysis.dataset import Bet, CohortRecord, Family, PanelEntry
from arena_core.analysis.families import FamilyResult
from arena_core.analysis.figures import BRIER, MIN_ALPHA, PEER, Rules, alpha_problem
from arena_core.analysis.rows import CohortReturn, PositionPnl
from arena_core.code import code_digest
from arena_core.domain.coherence import CoherenceSummary, TradeCoherence, coherence_summary
from arena_core.domain.money import ZERO
from arena_core.errors import DatasetError
from arena_core.ports.publisher import digest as digest_of

V1, V1_PANEL = "v1", "v1+panel"
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


T = TypeVar("T")


def _by_family(items: Iterable[tuple[str, T]]) -> dict[str, list[T]]:
    found: dict[str, list[T]] = {}
    for family, item in items:
        found.setdefault(family, []).append(item)
    return found


@dataclass(frozen=True)
class Inputs:
    """The input tables of one methodology, read and checked."""

    families: list[Family]
    bets: list[Bet]
    records: list[CohortRecord]
    positions: list[PositionPnl]
    panel: list[PanelEntry]
    coherence: list[tuple[str, TradeCoherence]]  # (family, buy)


def read_inputs(
    tables: Mapping[str, bytes],
    methodology: str,
    *,
    bets: bool = True,
    positions: bool = True,
    records: Callable[[], list[dataset.CohortRecord]] | None = None,
) -> Inputs:
    """Parse the input tables and keep the methodology's rows (``bets``, ``positions``: the
    forecasts and the positions too; they need not be parsed when their statistics are
    kept). ``records``: the methodology's rows of ``family_returns`` as parsing it gives
    them, when known otherwise (most of them kept: ``site/completed.py``)."""

    def rows(name: str, columns: Sequence[str]) -> list[dataset.Record]:
        data = tables.get(name)
        if data is None:
            raise DatasetError(f"the dataset has no {name}.csv")
        return dataset.of_methodology(dataset.parse_table(name, data, columns), methodology)

    panel = methodology == V1_PANEL
    if "forecasts" not in tables:
        raise DatasetError("the dataset has no forecasts.csv")
    return Inputs(
        families=dataset.families(rows("families", dataset.FAMILY_COLUMNS)),
        bets=dataset.bets(rows("forecasts", dataset.FORECAST_COLUMNS)) if bets else [],
        records=(
            records()
            if records is not None
            else dataset.cohort_records(rows("family_returns", dataset.RETURN_COLUMNS))
        ),
        positions=(
            dataset.positions(rows("position_returns", dataset.POSITION_COLUMNS))
            if positions
            else []
        ),
        panel=dataset.panel_entries(rows("panel_scores", dataset.PANEL_COLUMNS)) if panel else [],
        coherence=_coherence(rows("coherence", COHERENCE_COLUMNS)) if panel else [],
    )


COHERENCE_COLUMNS = (
    "methodology", "family_id", "market_id", "side", "yes_side", "p_yes", "yes_price",
    "coherent", "fraction", "kelly", "size_to_kelly",
)  # fmt: skip


def _coherence(rows: Sequence[dataset.Record]) -> list[tuple[str, TradeCoherence]]:
    found = []
    for cell in dataset.cells("coherence", rows):
        size = cell.row["size_to_kelly"]
        found.append(
            (
                cell.text("family_id"),
                TradeCoherence(
                    market_id=cell.text("market_id"),
                    side=cell.text("side"),
                    yes_side=cell.flag("yes_side"),
                    p_yes=cell.decimal("p_yes"),
                    yes_price=cell.decimal("yes_price"),
                    coherent=cell.flag("coherent"),
                    fraction=cell.decimal("fraction"),
                    kelly=cell.decimal("kelly"),
                    size_to_kelly=None if size == "" else cell.decimal("size_to_kelly"),
                ),
            )
        )
    return found


def _bets_board(inputs: Inputs, rules: Rules, *, calibrate: bool) -> Board:
    models = {f.family_id for f in inputs.families if f.kind == "llm"}
    return analyze_forecasts(
        [b.forecast for b in inputs.bets],
        rankable=models,
        compared=models,
        measure=BRIER,
        rules=rules,
        peer_market=False,
        groups=_GROUPS,
        calibrate=calibrate,
    )


_GROUPS = {"category": lambda f: f.category, "time_to_close": lambda f: f.horizon}


@dataclass(frozen=True)
class BetCounts:
    """A family's resolved bets and how many of them won (the trading columns)."""

    resolved: int = 0
    won: int = 0


@dataclass(frozen=True)
class _BetsPart:
    """What the forecasts alone decide: their statistics and each family's bet counts."""

    board: Board
    counts: dict[str, BetCounts]

    def dump(self) -> str:
        counts = {f: [c.resolved, c.won] for f, c in self.counts.items()}
        board = stored.plain(self.board)  # nested, not a text: parsed once
        return json.dumps({"board": board, "counts": counts}, separators=(",", ":"))

    @classmethod
    def load(cls, text: str) -> _BetsPart:
        try:
            found = json.loads(text)
            counts = {str(f): BetCounts(int(n), int(w)) for f, (n, w) in found["counts"].items()}
            board = stored.board_from_plain(found["board"])
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise DatasetError(f"kept statistics cannot be read: {type(exc).__name__}") from exc
        return cls(board, counts)


Kept = dict[str, tuple[str, str]]  # "methodology/part" -> (the inputs' digest, the part's JSON)


def _bets_part(
    tables: Mapping[str, bytes],
    methodology: str,
    rules: Rules,
    kept: Kept,
    digests: Mapping[str, str],
) -> tuple[_BetsPart, str]:
    """The forecasts' statistics: as kept when computed from the same forecasts and families
    by the same code under the same rules, else computed (then kept)."""
    digest = hashlib.sha256()
    for text in (code_digest(), methodology, repr(rules)):
        digest.update(text.encode() + b"\0")
    for name in ("families", "forecasts"):
        known = digests.get(name) or digest_of(tables.get(name, b""))
        digest.update(known.encode() + b"\0")
    key, slot = digest.hexdigest(), f"{methodology}/bets"
    if slot in kept and kept[slot][0] == key:
        try:
            return _BetsPart.load(kept[slot][1]), key
        except DatasetError:
            pass  # unreadable: computed again, as without it
    inputs = read_inputs(tables, methodology)
    won = _by_family([(b.forecast.family_id, b.won) for b in inputs.bets])
    part = _BetsPart(
        _bets_board(inputs, rules, calibrate=methodology == V1),
        {f: BetCounts(len(found), sum(found)) for f, found in won.items()},
    )
    kept[slot] = (key, part.dump())
    return part, key


def _returns_part(
    tables: Mapping[str, bytes],
    methodology: str,
    *,
    board: Board,
    returns: Sequence[CohortReturn],
    models: set[str],
    kept: Kept,
    digests: Mapping[str, str],
) -> tuple[ReturnStatistics, str]:
    """The return statistics: as kept when computed by the same code under the same rules for
    the same families from the same matured cohorts and positions, else computed from the
    positions (then kept). They change when a cohort matures, not every ten minutes."""
    digest = hashlib.sha256()
    positions = digests.get("position_returns") or digest_of(tables.get("position_returns", b""))
    matured = sorted((r.family_id, r.cohort_id) for r in returns if r.matured)
    names = return_names(board, returns)
    for text in (code_digest(), methodology, repr(board.rules), positions, repr(sorted(models))):
        digest.update(text.encode() + b"\0")
    digest.update(repr((names, matured)).encode())
    key, slot = digest.hexdigest(), f"{methodology}/returns"
    if slot in kept and kept[slot][0] == key:
        try:
            found = stored.load_value(ReturnStatistics, kept[slot][1])
            if isinstance(found, ReturnStatistics) and sorted(found.figures) == names:
                return found, key
        except DatasetError:
            pass  # unreadable: computed again, as without it
    inputs = read_inputs(tables, methodology, bets=False)
    computed = return_statistics(board, returns, inputs.positions, compared=models)
    kept[slot] = (key, stored.dump_value(computed))
    return computed, key


def build(
    tables: Mapping[str, bytes],
    methodology: str,
    rules: Rules,
    kept: Kept | None = None,
    digests: Mapping[str, str] | None = None,
    *,
    records: Callable[[], list[dataset.CohortRecord]] | None = None,
) -> BoardResult:
    """The methodology's leaderboard from the CSV of its input tables. ``kept``: the
    forecasts' statistics kept from an earlier call, read when its forecasts are the same and
    updated otherwise (the site's, between publications; the result is the same either way);
    ``digests``: the tables' digests where known (a table is then read only if its statistics
    are not kept: ``tables`` may compute its CSV on demand); ``records``: the rows of
    ``family_returns``, as ``read_inputs`` takes them."""
    kept = {} if kept is None else kept
    part, bets_key = _bets_part(tables, methodology, rules, kept, digests or {})
    inputs = read_inputs(tables, methodology, bets=False, positions=False, records=records)
    models = {f.family_id for f in inputs.families if f.kind == "llm"}
    returns = [r.result for r in inputs.records]
    statistics, returns_key = _returns_part(
        tables,
        methodology,
        board=part.board,
        returns=returns,
        models=models,
        kept=kept,
        digests=digests or {},
    )
    bets = with_returns(
        part.board,
        returns,
        [],
        rankable=models,
        compared=models,
        calibrate=methodology == V1,
        statistics=statistics,
    )
    records_of = _by_family([(r.result.family_id, r) for r in inputs.records])
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
    trades = _by_family(inputs.coherence)
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
        groups=_GROUPS,
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


SETTINGS = "analysis.json"  # under data/: what the leaderboards were computed with


def settings_json(rules: Rules, methodologies: Sequence[str], generated_at: datetime) -> bytes:
    """The analysis settings a dataset is published with: the rules (minimum samples and the
    clustering) and the methodology versions, current first (the order of its leaderboards)."""
    return json.dumps(
        {
            "generated_at": generated_at.isoformat().replace("+00:00", "Z"),
            "methodologies": list(methodologies),
            "rules": {
                name: (value.value if isinstance(value, Clustering) else value)
                for name, value in asdict(rules).items()
            },
        },
        indent=1,
    ).encode()


def read_settings(data: bytes) -> tuple[Rules, list[str]]:
    """The rules and methodology versions of a published ``analysis.json``."""
    try:
        found = json.loads(data)
        rules = found["rules"]
        parsed = Rules(
            min_forecasts=_count(rules, "min_forecasts"),
            min_cohorts=_count(rules, "min_cohorts"),
            clustering=Clustering(rules["clustering"]),
            min_weeks=_count(rules, "min_weeks"),
            min_events=_count(rules, "min_events"),
            min_return_cohorts=_count(rules, "min_return_cohorts"),
            alpha=float(rules["alpha"]),
        )
        versions = [str(v) for v in found["methodologies"]]
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        raise DatasetError(f"{SETTINGS} cannot be read: {type(exc).__name__}") from exc
    known = {V1, V1_PANEL}
    if alpha_problem(parsed.alpha) or not versions or set(versions) - known:
        raise DatasetError(
            f"{SETTINGS} holds an unknown methodology or an alpha outside [{MIN_ALPHA:g}, 1)"
        )
    if len(set(versions)) != len(versions):  # each would be a second, identical leaderboard
        raise DatasetError(f"{SETTINGS} names a methodology twice")
    return parsed, versions


def _count(rules: Mapping[str, object], name: str) -> int:
    value = rules[name]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 10**6:
        raise ValueError(f"{name} is not a count")
    return value
