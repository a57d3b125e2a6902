"""Render the static site: data in (views from ``collect``), files out (path → bytes).

Jinja2 with autoescape on for every template: market questions, model reasoning and raw replies
are untrusted and always rendered as text. No inline script or style: the pages work under
``default-src 'self'``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from datetime import date, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from arena_core.analysis.families import Breakdown, Calibration
from arena_core.domain.cohort import Cohort, CohortStatus
from arena_core.domain.panel import P_MAX, P_MIN, PANEL_HORIZON, PANEL_SIZE, PRICE_BAND
from arena_core.domain.text import inert_text
from arena_core.protocol.prompt import Prompt
from arena_core.site import boards as boards_module
from arena_core.site import exports, pairwise, tables
from arena_core.site.charts import RangeChart
from arena_core.site.cohort_tables import cohort_rows, cohort_tables
from arena_core.site.collect import (
    CohortView,
    DecisionView,
    FamilyView,
    LeaderboardData,
)
from arena_core.site.costs import CostSummary, per_forecast, summary, weekly
from arena_core.site.feed import FeedItem
from arena_core.site.markets import MarketView, price_charts
from arena_core.site.reliability import reliability_diagram
from arena_core.site.schema_panel import PANEL_TABLES

HERE = Path(__file__).parent
RECENT_DECISIONS = 5
EMPTY_CALIBRATION = Calibration((), (), None, None)
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


def _share(value: Decimal | float | None) -> str:
    """A share as a percentage to one place (a float statistic or an exact Decimal)."""
    if value is None:
        return "—"
    exact = value if isinstance(value, Decimal) else Decimal(repr(value))
    return f"{_fixed(exact * 100, '0.1')}%"


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
        share=_share,
        prob=lambda v: _fixed(v, "0.0001"),
        ratio=lambda v: _fixed(v, "0.01"),
        usd=lambda v: "—" if v is None else f"${_fixed(v, '0.0001')}",
        num=_sort_value,
        places=_decimal_places,
        count=lambda v: "—" if v is None else f"{v:,.0f}",
        when=_when,
    )
    return env


class SiteRenderer:
    def __init__(self, now: datetime, *, universe_size: int = 500, horizon: int = 5) -> None:
        self._env = environment()
        self._now = now
        self._common = {
            "now": now,
            "universe_size": universe_size,
            "horizon": horizon,
            "recent_cohorts": RECENT_COHORTS,
            "panel": {
                "size": PANEL_SIZE,
                "horizon_days": PANEL_HORIZON.days,
                "band": PRICE_BAND,
                "clip": (P_MIN, P_MAX),
            },
        }

    def page(self, template: str, depth: int, **context: Any) -> bytes:
        root = "../" * depth
        html = self._env.get_template(template).render(root=root, **self._common, **context)
        return html.encode()

    def global_files(
        self,
        boards: Sequence[LeaderboardData],
        cohorts: Sequence[Cohort],
        *,
        returns: Sequence[RangeChart] = (),
        feed: Sequence[FeedItem] = (),
        costs: Sequence[dict[str, Any]] = (),
        universe_weeks: Sequence[date] = (),
    ) -> dict[str, bytes]:
        """Every site-wide page and table: one leaderboard per methodology version (the current
        one first), each with its own statistics; the model pages show each version apart."""
        current = boards[0]
        spend = board_costs(boards, costs)
        starts = {c.cohort_id: c.week_start.date() for c in cohorts}
        common = {
            "rules": current.rules,
            "cohorts": cohorts,
            "methodology_version": current.methodology,
            "versions": [b.methodology for b in boards],
        }
        files = {
            "index.html": self.page(
                "index.html.j2",
                0,
                title="Leaderboard",
                boards=boards,
                returns=returns,
                feed=feed,
                spend=spend,
                **common,
            ),
            "methodology.html": self.page("methodology.html.j2", 0, title="Methodology", **common),
            "data/index.html": self.page(
                "data.html.j2",
                1,
                title="Data",
                tables=exports.TABLES,
                global_tables=tables.GLOBAL_TABLES,
                cohort_tables=cohort_tables,
                panel_tables=tuple(PANEL_TABLES),
                weeks=universe_weeks,
                **common,
            ),
            "data/cohorts.json": _cohorts_json(cohorts),
            f"data/{boards_module.SETTINGS}": boards_module.settings_json(
                current.rules, [b.methodology for b in boards], self._now
            ),
        }
        files["pairwise.html"] = self.page(
            "pairwise.html.j2", 0, title="Every pair compared", sections=_pairwise(boards)
        )
        for table, rows in global_tables(boards).items():
            files.update(exports.table_files("data", table, rows))
        for family_id, sections in _model_sections(boards).items():
            files[f"models/{family_id}.html"] = self.page(
                "model.html.j2",
                1,
                title=sections[0]["view"].spec.display_name,
                spec=sections[0]["view"].spec,
                sections=sections,
                charts=sections[0]["view"].charts,
                recent=sections[0]["view"].recent,
                rules=current.rules,
                spend=spend,
                weekly_costs=weekly([r for r in costs if r["family_id"] == family_id], starts),
            )
        for name in ("style.css", "app.js"):
            files[f"static/{name}"] = (HERE / "static" / name).read_bytes()
        return files

    def cohort_files(self, view: CohortView, *, tables: bool = True) -> dict[str, bytes]:
        """The cohort's and its agents' pages; with ``tables``, its data files and (when its
        decisions were read in full) its decision pages."""
        cohort_id = view.cohort.cohort_id
        files = {
            f"cohorts/{cohort_id}/index.html": self.page(
                "cohort.html.j2", 2, title=f"Cohort {cohort_id}", view=view
            )
        }
        for agent in view.agents:
            files[f"cohorts/{cohort_id}/{agent.agent.agent_id}.html"] = self.page(
                "agent.html.j2",
                2,
                title=f"{agent.agent.display_name} in {cohort_id}",
                view=agent,
                questions=view.question,
                final=view.cohort.status is CohortStatus.COMPLETED,
            )
        if tables:
            for table, rows in cohort_rows(view).items():
                files.update(exports.table_files(f"data/cohorts/{cohort_id}", table, rows))
            files.update(self.decision_files(view))
        return files

    def market_files(self, views: Sequence[MarketView]) -> dict[str, bytes]:
        """A page per market."""
        files = {}
        for view in views:
            files[f"markets/{view.market.market_id}.html"] = self.page(
                "market.html.j2",
                1,
                title=view.market.question,
                view=view,
                price_charts=price_charts(view),
            )
        return files

    def decision_files(self, view: CohortView) -> dict[str, bytes]:
        """A page per decision, and the prompt it was sent (when the details were read)."""
        agents = {a.agent.agent_id: a.agent for a in view.agents}
        files = {}
        for details in view.details or ():
            decision_id = details.record.decision_id
            files[f"decisions/{decision_id}.html"] = self.page(
                "decision.html.j2",
                1,
                title=f"Decision {decision_id}",
                d=details,
                agent=agents.get(details.record.agent_id),
                view=view,
            )
            prompt = Prompt(system=details.system_prompt, user=details.user_prompt)
            files[f"decisions/{decision_id}.prompt.txt"] = prompt.transcript().encode()
        return files


def board_costs(
    boards: Sequence[LeaderboardData], costs: Sequence[dict[str, Any]]
) -> dict[tuple[str, str], tuple[CostSummary, Decimal | None]]:
    """Per (methodology, family): what its decisions cost over the leaderboard's cohorts, and
    dollars per scored forecast (under v1+panel, per scored panel forecast)."""
    found = {}
    for board in boards:
        ids = {c.cohort_id for c in board.cohorts}
        for view in board.families:
            family = view.spec.family_id
            rows = [r for r in costs if r["family_id"] == family and r["cohort_id"] in ids]
            cost = summary(rows)
            row = board.row(family)
            forecasts = row.result.resolved if row and row.result else 0
            found[(board.methodology, family)] = (cost, per_forecast(cost, forecasts))
    return found


def global_tables(boards: Sequence[LeaderboardData]) -> dict[str, list[dict[str, Any]]]:
    """Every site-wide table: the input tables as published, then what is computed from them,
    each holding the rows of every leaderboard (the current methodology first)."""
    found = {
        name: [row for b in boards for row in b.inputs.get(name, [])]
        for name in tables.INPUT_TABLES
    }
    found |= tables.output_tables([b.result for b in boards])
    return {name: found[name] for name in tables.GLOBAL_TABLES}


def _cohorts_json(cohorts: Sequence[Cohort]) -> bytes:
    listing = [
        {
            "cohort_id": c.cohort_id,
            "week_start": exports.cell(c.week_start),
            "status": c.status.value,
            "methodology": c.methodology_version,
            "files": [f"cohorts/{c.cohort_id}/{t}.csv" for t in cohort_tables(c)],
        }
        for c in cohorts
    ]
    return json.dumps(listing, indent=1).encode()


def _pairwise(boards: Sequence[LeaderboardData]) -> list[dict[str, Any]]:
    sections = []
    for board in boards:
        result = board.result
        shown = result.shown
        names = {row.family_id: row.display_name for row in result.rows}
        pairs = [*shown.pairs, *shown.brier_pairs, *result.bets.return_pairs]
        sections.append(
            {
                "methodology": board.methodology,
                "panel": result.panel is not None,
                "measure": shown.measure.name,
                "compared": shown.compared,
                "rules": result.rules,
                "matrices": pairwise.matrices(pairs, names),
                "lines": pairwise.lines(pairs, names),
                "unshared": sum(p.difference is None for p in pairs),
            }
        )
    return sections


def _model_sections(boards: Sequence[LeaderboardData]) -> dict[str, list[dict[str, Any]]]:
    """Per family, one section per leaderboard it is on: its row, its figures, calibration and
    breakdowns there (under v1+panel, of its panel forecasts, with its coherence)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for board in boards:
        shown = board.result.shown
        breakdowns: dict[str, list[Breakdown]] = {}
        for b in shown.breakdowns:
            breakdowns.setdefault(b.family_id, []).append(b)
        for view in board.families:
            family = view.spec.family_id
            row = board.row(family)
            result = shown.families.get(family)
            calibration = result.calibration if result else EMPTY_CALIBRATION
            found.setdefault(family, []).append(
                {
                    "board": board,
                    "view": view,
                    "row": row,
                    "calibration": calibration,
                    "diagram": reliability_diagram(calibration.bins, calibration.market_bins),
                    "breakdowns": breakdowns.get(family, []),
                }
            )
    return found


def recent_decisions(families: Sequence[FamilyView], cohorts: Sequence[CohortView]) -> None:
    """Attach each family's most recent decisions (from the cohorts being rendered)."""
    by_family: dict[str, list[DecisionView]] = {}
    for cohort in cohorts:
        for agent in cohort.agents:
            by_family.setdefault(agent.agent.family_id, []).extend(agent.decisions)
    for family in families:
        found = sorted(by_family.get(family.spec.family_id, []), key=lambda d: d.record.updated_at)
        family.recent = found[-RECENT_DECISIONS:][::-1]
