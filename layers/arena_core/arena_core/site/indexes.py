"""The pages that make everything findable: every model and the exact model behind it, every
cohort, every market, the calibration of every forecaster side by side, and a changelog of what
the benchmark measures, built from the data itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from arena_core.analysis.families import FamilyResult
from arena_core.domain.cohort import Cohort
from arena_core.domain.lineup import AgentSpec
from arena_core.domain.releases import LineupRelease
from arena_core.site.paths import page_path
from arena_core.site.reliability import ReliabilityDiagram, reliability_diagram
from arena_core.site.views import LeaderboardData

MARKETS_LISTED = 500  # the markets page lists the newest; markets.csv holds every one


@dataclass(frozen=True)
class ModelEntry:
    spec: AgentSpec
    releases: list[tuple[LineupRelease, AgentSpec | None]]
    cohorts: int
    retired: bool


def model_entries(boards: Sequence[LeaderboardData]) -> list[ModelEntry]:
    """Every family of every leaderboard (its most recent name and model), models first."""
    found: dict[str, ModelEntry] = {}
    for board in boards:
        for view in board.families:
            family = view.spec.family_id
            before = found.get(family)
            cohorts = len(view.latest) + (before.cohorts if before else 0)
            retired = bool(view.releases) and view.releases[-1][1] is None
            found[family] = ModelEntry(view.spec, view.releases, cohorts, retired)
    return sorted(found.values(), key=lambda m: (m.spec.kind.value != "llm", m.spec.display_name))


@dataclass(frozen=True)
class ChangeEntry:
    at: datetime
    what: str
    details: str


def changelog(cohorts: Sequence[Cohort], releases: Sequence[LineupRelease]) -> list[ChangeEntry]:
    """Methodology versions (from the first cohort of each) and lineup releases, newest first."""
    entries = []
    seen: set[str] = set()
    for cohort in sorted(cohorts, key=lambda c: c.week_start):
        if cohort.methodology_version not in seen:
            seen.add(cohort.methodology_version)
            entries.append(
                ChangeEntry(
                    cohort.week_start,
                    f"Methodology {cohort.methodology_version}",
                    f"first cohort under it: {cohort.cohort_id}",
                )
            )
    previous: dict[str, AgentSpec] = {}
    for release in sorted(releases, key=lambda r: r.release):
        current = {s.family_id: s for s in release.lineup}
        changes = [
            f"{s.family_id} → {s.model_id}"
            for f, s in current.items()
            if f not in previous or previous[f].model_id != s.model_id
        ]
        changes += [f"{f} retired" for f in previous if f not in current]
        entries.append(
            ChangeEntry(
                release.effective_from,
                f"Lineup release {release.release}",
                "; ".join(changes) or "no change of model",
            )
        )
        previous = current
    return sorted(entries, key=lambda e: e.at, reverse=True)


@dataclass(frozen=True)
class CalibrationCard:
    name: str
    link: str
    forecasts: int
    ece: float | None
    market_ece: float | None
    diagram: ReliabilityDiagram


def _card(name: str, link: str, result: FamilyResult) -> CalibrationCard:
    calibration = result.calibration
    return CalibrationCard(
        name=name,
        link=link,
        forecasts=sum(b.count for b in calibration.bins),
        ece=calibration.ece,
        market_ece=calibration.market_ece,
        diagram=reliability_diagram(calibration.bins, calibration.market_bins),
    )


def calibration_sections(boards: Sequence[LeaderboardData]) -> list[dict[str, Any]]:
    """Per leaderboard, a reliability diagram per forecaster in leaderboard order."""
    sections = []
    for index, board in enumerate(boards, 1):
        shown = board.result.shown
        cards = [
            _card(row.display_name, page_path("models", row.family_id), result)
            for row in board.result.rows
            if row.kind in ("llm", "baseline")
            and (result := shown.families.get(row.family_id)) is not None
        ]
        sections.append(
            {
                "methodology": board.methodology,
                "panel": board.result.panel is not None,
                "index": index,
                "cards": cards,
            }
        )
    return sections


def listed_markets(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The markets page's rows: the newest ``MARKETS_LISTED`` by scheduled end."""
    ordered = sorted(rows, key=lambda r: str(r.get("end_date") or ""), reverse=True)
    return ordered[:MARKETS_LISTED]


def index_pages(
    page: Callable[..., bytes],
    boards: Sequence[LeaderboardData],
    cohorts: Sequence[Cohort],
    universe_weeks: Sequence[date],
    releases: Sequence[LineupRelease],
    *,
    operator: str = "",
) -> dict[str, bytes]:
    """Calibration side by side, the models, cohorts, about and changelog pages."""
    return {
        "calibration.html": page(
            "calibration.html.j2",
            0,
            title="Calibration",
            sections=calibration_sections(boards),
        ),
        "models/index.html": page(
            "models_index.html.j2", 1, title="Models", models=model_entries(boards)
        ),
        "cohorts/index.html": page(
            "cohorts_index.html.j2",
            1,
            title="Cohorts",
            cohorts=cohorts,
            universe_weeks=set(universe_weeks),
        ),
        "about.html": page("about.html.j2", 0, title="About", operator=operator),
        "changelog.html": page(
            "changelog.html.j2",
            0,
            title="Changelog",
            entries=changelog(cohorts, releases),
        ),
    }
