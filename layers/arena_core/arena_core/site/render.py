"""Render the static site: data in (views from ``collect``), files out (path → bytes).

Jinja2 with autoescape on for every template: market questions, model reasoning and raw replies
are untrusted and always rendered as text. No inline script or style: the pages work under
``default-src 'self'``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from arena_core.domain.cohort import METHODOLOGY_VERSION, Cohort
from arena_core.domain.text import inert_text
from arena_core.site import exports, pairwise, tables
from arena_core.site.collect import (
    AgentView,
    CohortView,
    DecisionView,
    FamilyView,
    LeaderboardData,
)
from arena_core.site.reliability import reliability_diagram
from arena_core.site.statistics import Breakdown

HERE = Path(__file__).parent
COHORT_TABLES = (
    "agents",
    "decisions",
    "trades",
    "positions",
    "settlements",
    "bet_scores",
    "snapshots",
)
RECENT_DECISIONS = 5
RECENT_COHORTS = 12  # rows of a model page's cohort table: page weight stays flat with history


def _fixed(value: Decimal | None, places: str) -> str:
    if value is None:
        return "—"
    rounded = value.quantize(Decimal(places), rounding=ROUND_HALF_EVEN)
    return f"{abs(rounded) if rounded == 0 else rounded:,f}"  # never "-0.00"


def _signed(value: Decimal | None) -> str:
    text = _fixed(value, "0.01")
    return text if value is None or text.startswith("-") else f"+{text}"


def _decimal_places(value: float | None, places: int = 4, *, signed: bool = False) -> str:
    """A computed statistic (a float) at ``places`` decimals, never "-0.000"."""
    if value is None:
        return "—"
    text = f"{value:.{places}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    elif signed and not text.startswith("-"):
        text = f"+{text}"
    return text


def _sort_value(value: Decimal | float | int | None) -> str:
    """A cell's ``data-value`` for sorting: exact, and empty when missing (sorted last)."""
    if value is None:
        return ""
    return format(value, "f") if isinstance(value, Decimal) else repr(value)


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value else "—"


def _inert(value: object) -> object:
    """Every value a template prints: text is made inert (bidi controls and control characters
    shown as markers, lone surrogates replaced) before it is escaped."""
    return inert_text(value) if isinstance(value, str) and not isinstance(value, Markup) else value


@functools.cache
def environment() -> Environment:
    """One environment per process: templates compile once, then every regeneration (each warm
    invocation of the snapshot function) reuses them."""
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_inert,
    )
    env.filters.update(
        money=lambda v: _fixed(v, "0.01"),
        signed=_signed,
        pct=lambda v: "—" if v is None else f"{_fixed(v, '0.01')}%",
        share=lambda v: "—" if v is None else f"{_fixed(v * 100, '0.1')}%",
        prob=lambda v: _fixed(v, "0.0001"),
        num=_sort_value,
        places=_decimal_places,
        count=lambda v: "—" if v is None else f"{v:,.0f}",
        when=_when,
    )
    return env


def _snapshot_rows(view: AgentView) -> list[dict[str, Any]]:
    return [s.model_dump() for s in view.hourly]


def cohort_rows(view: CohortView) -> dict[str, list[dict[str, Any]]]:
    """The per-cohort export tables."""
    tables: dict[str, list[dict[str, Any]]] = {name: [] for name in COHORT_TABLES}
    for agent in view.agents:
        latest = agent.latest.model_dump() if agent.latest else {}
        tables["agents"].append(
            {**latest, **agent.agent.model_dump(), "snapshot_at": latest.get("taken_at")}
        )
        for d in agent.decisions:
            outcome = d.outcome.model_dump() if d.outcome else {}
            tables["decisions"].append(
                {
                    **d.record.model_dump(exclude={"checkpoint", "outcome"}),
                    **outcome,
                    "reasoning": d.reasoning,
                    "replies": len(d.outcome.responses) if d.outcome else 0,
                }
            )
        tables["trades"] += [t.model_dump() for t in agent.trades]
        tables["positions"] += [
            {
                **p.position.model_dump(),
                "avg_entry_price": p.position.avg_entry_price,
                "mark_price": p.mark_price,
                "marked_value": p.marked_value,
            }
            for p in agent.positions
        ]
        tables["settlements"] += [s.model_dump() for s in agent.settlements]
        tables["bet_scores"] += [s.model_dump() for s in agent.scores]
        tables["snapshots"] += _snapshot_rows(agent)
    return tables


class SiteRenderer:
    def __init__(self, now: datetime, *, universe_size: int = 500, horizon: int = 5) -> None:
        self._env = environment()
        self._now = now
        self._common = {
            "now": now,
            "methodology_version": METHODOLOGY_VERSION,
            "universe_size": universe_size,
            "horizon": horizon,
            "recent_cohorts": RECENT_COHORTS,
        }

    def page(self, template: str, depth: int, **context: Any) -> bytes:
        root = "../" * depth
        html = self._env.get_template(template).render(root=root, **self._common, **context)
        return html.encode()

    def global_files(self, board: LeaderboardData, cohorts: Sequence[Cohort]) -> dict[str, bytes]:
        families = board.families
        names = {f.spec.family_id: f.spec.display_name for f in families}
        statistics = board.statistics
        common = {"rules": board.rules, "cohorts": cohorts}
        files = {
            "index.html": self.page(
                "index.html.j2",
                0,
                title="Leaderboard",
                rows=[f.row for f in families],
                market=statistics.market,
                **common,
            ),
            "pairwise.html": self.page(
                "pairwise.html.j2",
                0,
                title="Every pair compared",
                matrices=pairwise.matrices(statistics.pairs, names),
                lines=pairwise.lines(statistics.pairs, names),
                unshared=sum(p.result is None for p in statistics.pairs),
            ),
            "methodology.html": self.page("methodology.html.j2", 0, title="Methodology", **common),
            "data/index.html": self.page(
                "data.html.j2",
                1,
                title="Data",
                tables=exports.TABLES,
                global_tables=tables.GLOBAL_TABLES,
                cohort_tables=COHORT_TABLES,
                **common,
            ),
            "data/cohorts.json": json.dumps(
                [
                    {
                        "cohort_id": c.cohort_id,
                        "week_start": exports.cell(c.week_start),
                        "status": c.status.value,
                        "files": [f"cohorts/{c.cohort_id}/{t}.csv" for t in COHORT_TABLES],
                    }
                    for c in cohorts
                ],
                indent=1,
            ).encode(),
        }
        for table, rows in tables.global_tables(board).items():
            files.update(exports.table_files("data", table, rows))
        breakdowns: dict[str, list[Breakdown]] = {}
        for b in statistics.breakdowns:
            breakdowns.setdefault(b.family_id, []).append(b)
        for family in families:
            calibration = family.stats.calibration
            files[f"models/{family.spec.family_id}.html"] = self.page(
                "model.html.j2",
                1,
                title=family.spec.display_name,
                view=family,
                diagram=reliability_diagram(calibration.bins, calibration.market_bins),
                breakdowns=breakdowns.get(family.spec.family_id, []),
                rules=board.rules,
            )
        for name in ("style.css", "app.js"):
            files[f"static/{name}"] = (HERE / "static" / name).read_bytes()
        return files

    def cohort_files(self, view: CohortView) -> dict[str, bytes]:
        cohort_id = view.cohort.cohort_id
        files = {
            f"cohorts/{cohort_id}/index.html": self.page(
                "cohort.html.j2", 2, title=f"Cohort {cohort_id}", view=view
            )
        }
        for agent in view.agents:
            files[f"cohorts/{cohort_id}/{agent.agent.agent_id}.html"] = self.page(
                "agent.html.j2", 2, title=f"{agent.agent.display_name} in {cohort_id}", view=agent
            )
        for table, rows in cohort_rows(view).items():
            files.update(exports.table_files(f"data/cohorts/{cohort_id}", table, rows))
        return files


def recent_decisions(families: Sequence[FamilyView], cohorts: Sequence[CohortView]) -> None:
    """Attach each family's most recent decisions (from the cohorts being rendered)."""
    by_family: dict[str, list[DecisionView]] = {}
    for cohort in cohorts:
        for agent in cohort.agents:
            by_family.setdefault(agent.agent.family_id, []).extend(agent.decisions)
    for family in families:
        found = sorted(by_family.get(family.spec.family_id, []), key=lambda d: d.record.updated_at)
        family.recent = found[-RECENT_DECISIONS:][::-1]
