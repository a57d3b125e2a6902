"""The input tables of a leaderboard, parsed from their CSV and checked (``read_inputs``), and the
analysis settings a dataset is published with (``analysis.json``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import TypeVar

from arena_core.analysis import dataset
from arena_core.analysis.clustered import Clustering
from arena_core.analysis.dataset import Bet, CohortRecord, Family, PanelEntry
from arena_core.analysis.figures import MIN_ALPHA, Rules, alpha_problem
from arena_core.analysis.rows import PositionPnl
from arena_core.domain.coherence import TradeCoherence
from arena_core.errors import DatasetError

V1, V1_PANEL = "v1", "v1+panel"
T = TypeVar("T")


def by_family(items: Iterable[tuple[str, T]]) -> dict[str, list[T]]:
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
