"""Read the published tables into the analysis' rows: what both the site and ``arena analyze``
compute from.

The site computes its statistics from the very CSV it publishes, parsed here, so a researcher
who runs ``arena analyze`` on the published files gets the same figures to the bit. Every table
is checked as it is read: a missing column, a cell that is not what its column holds (a
probability outside [0, 1], ``NaN``, a date that is not one) or text that is not UTF-8 is a
``DatasetError`` naming the table, the row and the column.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation

from arena_core.analysis.rows import CohortReturn, Forecast, PositionPnl
from arena_core.errors import DatasetError, InvalidProbabilityError

Record = Mapping[str, str]
# A spreadsheet runs a cell starting with one of these as a formula, so the exports prefix such
# text with an apostrophe; reading a text cell undoes exactly that.
GUARDED = ("'=", "'+", "'-", "'@", "'\t", "'\r", "'＝", "'＋", "'－", "' ", "'\u3000")
UNDER_WEEK, UNDER_MONTH, LONGER, UNKNOWN = "under_week", "under_month", "longer", "unknown"
# No figure of the dataset comes near this (a return of a trillion per cent); beyond it a sum
# could overflow a float and a decimal could no longer be printed at its column's places.
LARGEST = Decimal("1e15")


def text(value: str) -> str:
    return value[1:] if value.startswith(GUARDED) else value


def parse_table(name: str, data: bytes, required: Sequence[str]) -> list[Record]:
    """The rows of a published CSV table, after checking it is UTF-8 and has ``required``."""
    try:
        body = data.decode("utf-8-sig")  # a spreadsheet's byte order mark is no column name
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{name}.csv is not UTF-8 (byte {exc.start})") from exc
    try:
        reader = csv.DictReader(io.StringIO(body, newline=""))
        header = reader.fieldnames or []
        lacking = [c for c in required if c not in header]
        if lacking:
            raise DatasetError(f"{name}.csv lacks the column(s) {', '.join(lacking)}")
        rows: list[Record] = list(reader)
    except csv.Error as exc:
        raise DatasetError(f"{name}.csv is not a readable CSV table: {exc}") from exc
    for number, row in enumerate(rows, 2):
        if None in row or any(v is None for v in row.values()):
            raise DatasetError(f"{name}.csv line {number} has the wrong number of cells")
    return rows


@dataclass(frozen=True)
class Cell:
    """Typed reads of one row, each failure naming the table, the line and the column."""

    table: str
    line: int
    row: Record

    def fail(self, column: str, why: str) -> DatasetError:
        return DatasetError(f"{self.table}.csv line {self.line}, column {column}: {why}")

    def text(self, column: str) -> str:
        return text(self.row[column])

    def number(self, column: str) -> float:
        return float(self.decimal(column))

    def decimal(self, column: str) -> Decimal:
        raw = self.row[column]
        try:
            value = Decimal(raw)
        except InvalidOperation as exc:
            raise self.fail(column, f"{raw[:40]!r} is not a number") from exc
        if not value.is_finite():
            raise self.fail(column, f"{raw[:40]!r} is not a finite number")
        if abs(value) >= LARGEST:
            raise self.fail(column, f"{raw[:40]!r} is out of range (its size must stay below 1e15)")
        return value

    def optional(self, column: str) -> float | None:
        return None if self.row.get(column, "") == "" else self.number(column)

    def integer(self, column: str) -> int:
        raw = self.row[column]
        digits = raw.removeprefix("-")
        if not (digits.isascii() and digits.isdigit()) or len(raw) > 18:
            raise self.fail(column, f"{raw[:40]!r} is not an integer")
        return int(raw)

    def flag(self, column: str) -> bool:
        raw = self.row[column]
        if raw not in ("true", "false"):
            raise self.fail(column, f"{raw[:40]!r} is not true or false")
        return raw == "true"

    def week(self, column: str) -> str:
        """A run week as exported: ``w`` and the ISO date of its Sunday (``w2026-03-01``)."""
        raw = self.row[column]
        try:
            day = date.fromisoformat(raw[1:]) if raw.startswith("w") and len(raw) == 11 else None
        except ValueError:
            day = None
        if day is None or day.isoweekday() != 7:
            raise self.fail(column, f"{raw[:40]!r} is not a run week (w and a Sunday's date)")
        return raw

    def moment(self, column: str) -> datetime | None:
        raw = self.row.get(column, "")
        if raw == "":
            return None
        try:
            found = datetime.fromisoformat(raw)
        except ValueError as exc:
            raise self.fail(column, f"{raw[:40]!r} is not a time") from exc
        if found.tzinfo is None:
            raise self.fail(column, f"{raw[:40]!r} has no time zone")
        return found


# What identifies a row of each input table (the datapackage's primary keys): a row read twice
# would count twice. A table without its key columns (a hand-made one) is read unchecked.
KEYS = {
    "forecasts": ("trade_id",),
    "panel_scores": ("cohort_id", "week", "market_id", "agent_id"),
    "family_returns": ("methodology", "family_id", "cohort_id"),
    "position_returns": ("position_id",),
    "families": ("methodology", "family_id"),
}


def cells(name: str, rows: Sequence[Record]) -> Iterator[Cell]:
    """Each row of table ``name`` as a ``Cell``; a row whose key was already read is refused."""
    key = KEYS.get(name, ()) if rows and all(c in rows[0] for c in KEYS.get(name, ())) else ()
    seen: dict[tuple[str, ...], int] = {}
    for line, row in enumerate(rows, 2):
        if key:
            values = tuple(row[c] for c in key)
            if values in seen:
                raise DatasetError(
                    f"{name}.csv line {line} repeats line {seen[values]} "
                    f"({', '.join(key)}): a row counted twice would weigh twice"
                )
            seen[values] = line
        yield Cell(name, line, row)


def week_of(moment: datetime | None) -> str:
    """The run week a moment falls in, as exported (``w`` and its Sunday's date); "" when
    unknown. A question's close week is one of the dimensions its errors are clustered on."""
    if moment is None:
        return ""
    day = moment.date()
    return f"w{(day - timedelta(days=(day.weekday() + 1) % 7)).isoformat()}"


def horizon(made: datetime | None, closes: datetime | None) -> str:
    """The time from a forecast to its market's scheduled close, as a breakdown group."""
    if made is None or closes is None:
        return UNKNOWN
    days = (closes - made).total_seconds() / 86400
    return UNDER_WEEK if days < 7 else UNDER_MONTH if days < 30 else LONGER


@dataclass(frozen=True)
class Bet:
    """A v1 forecast (a scored bet) and what the trading columns need of it."""

    forecast: Forecast
    won: bool


FORECAST_COLUMNS = (
    "methodology", "family_id", "agent_id", "cohort_id", "market_id", "event_id", "run_week",
    "side", "p_yes", "market_p_yes", "outcome", "matured", "category", "bet_at", "closes_at",
)  # fmt: skip


def _forecast(cell: Cell, made: str, closes: str, **scores: float | None) -> Forecast:
    """The forecast a row of ``forecasts`` or ``panel_scores`` holds (their shared columns;
    ``scores``: a panel row's peer and baseline scores)."""
    ends = cell.moment(closes)
    horizon_of = horizon(cell.moment(made), ends)
    try:
        return Forecast(
            family_id=cell.text("family_id"),
            agent_id=cell.text("agent_id"),
            cohort_id=cell.text("cohort_id"),
            market_id=cell.text("market_id"),
            event_id=cell.text("event_id"),
            week=cell.week("run_week"),
            p_yes=cell.number("p_yes"),
            market_p_yes=cell.number("market_p_yes"),
            outcome=cell.integer("outcome"),
            matured=cell.flag("matured"),
            category=cell.text("category") or "uncategorised",
            horizon=horizon_of,
            closes=week_of(ends),
            **scores,
        )
    except InvalidProbabilityError as exc:  # p outside [0, 1], an outcome not 0 or 1
        raise cell.fail("p_yes", str(exc)) from exc


def bets(rows: Sequence[Record]) -> list[Bet]:
    """``forecasts.csv``: every scored bet, in YES terms (a bet on NO forecasts YES at one minus
    its confidence, so it won when YES did not happen)."""
    found = []
    for cell in cells("forecasts", rows):
        forecast = _forecast(cell, "bet_at", "closes_at")
        on_no = cell.text("side").upper() == "NO"
        found.append(Bet(forecast, forecast.outcome == (0 if on_no else 1)))
    return found


PANEL_COLUMNS = (
    "methodology", "run_week", "run_at", "cohort_id", "market_id", "event_id", "category",
    "end_date", "agent_id", "family_id", "scored_by", "p_yes", "market_p_yes", "outcome",
    "baseline_score", "peer_score", "matured", "missing", "clipped",
)  # fmt: skip


@dataclass(frozen=True)
class PanelEntry:
    """A scored panel forecast and who made it (llm, baseline or ensemble)."""

    forecast: Forecast
    scored_by: str
    missing: bool
    clipped: bool


def panel_entries(rows: Sequence[Record]) -> list[PanelEntry]:
    """``panel_scores.csv``: every scored panel forecast with its peer and baseline scores."""
    found = []
    for cell in cells("panel_scores", rows):
        forecast = _forecast(
            cell,
            "run_at",
            "end_date",
            peer=cell.number("peer_score"),
            baseline=cell.number("baseline_score"),
        )
        found.append(
            PanelEntry(forecast, cell.text("scored_by"), cell.flag("missing"), cell.flag("clipped"))
        )
    return found


@dataclass(frozen=True)
class CohortRecord:
    """A family's cohort: its return, P/L and trades at its latest snapshot."""

    result: CohortReturn
    total_pnl: Decimal
    trades: int


RETURN_COLUMNS = (
    "methodology", "family_id", "cohort_id", "return_pct", "total_pnl", "trades", "matured",
)  # fmt: skip


def cohort_records(rows: Sequence[Record]) -> list[CohortRecord]:
    """``family_returns.csv``: one row per family and cohort."""
    found = []
    for cell in cells("family_returns", rows):
        cohort_id = cell.text("cohort_id")
        found.append(
            CohortRecord(
                CohortReturn(
                    family_id=cell.text("family_id"),
                    cohort_id=cohort_id,
                    week=cohort_id,
                    return_pct=cell.number("return_pct"),
                    matured=cell.flag("matured"),
                ),
                total_pnl=cell.decimal("total_pnl"),
                trades=cell.integer("trades"),
            )
        )
    return found


POSITION_COLUMNS = (
    "methodology", "family_id", "cohort_id", "market_id", "event_id", "run_week", "pnl_pct",
)  # fmt: skip


def positions(rows: Sequence[Record]) -> list[PositionPnl]:
    """``position_returns.csv``: the positions of completed cohorts, with their P/L."""
    return [
        PositionPnl(
            family_id=cell.text("family_id"),
            cohort_id=cell.text("cohort_id"),
            market_id=cell.text("market_id"),
            event_id=cell.text("event_id"),
            week=cell.week("run_week"),
            pnl_pct=cell.number("pnl_pct"),
        )
        for cell in cells("position_returns", rows)
    ]


@dataclass(frozen=True)
class Family:
    """Who a family is: what the leaderboard prints beside its figures."""

    family_id: str
    display_name: str
    kind: str  # llm or baseline
    stand_in: bool
    model_id: str


FAMILY_COLUMNS = ("methodology", "family_id", "display_name", "kind", "stand_in", "model_id")


def families(rows: Sequence[Record]) -> list[Family]:
    """``families.csv``: one row per family that ran under the methodology."""
    return [
        Family(
            family_id=cell.text("family_id"),
            display_name=cell.text("display_name"),
            kind=cell.text("kind"),
            stand_in=cell.flag("stand_in"),
            model_id=cell.text("model_id"),
        )
        for cell in cells("families", rows)
    ]


def of_methodology(rows: Sequence[Record], methodology: str) -> list[Record]:
    return [r for r in rows if r.get("methodology") == methodology]
