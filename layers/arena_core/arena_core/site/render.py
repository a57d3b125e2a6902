"""Render the static site: data in (views from ``collect``), files out (path → bytes).

Jinja2 with autoescape on for every template: market questions, model reasoning and raw replies
are untrusted and always rendered as text. No inline script or style: the pages work under
``default-src 'self'``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Sequence
from datetime import date, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from arena_core.analysis import validity
from arena_core.analysis.families import Breakdown, Calibration
from arena_core.code import code_digest
from arena_core.constants import META_CONTENT_SECURITY_POLICY
from arena_core.domain.cohort import Cohort, CohortStatus
from arena_core.domain.commitment_log import LOG_KEY, decision_key
from arena_core.domain.panel import P_MAX, P_MIN
from arena_core.domain.releases import LineupRelease
from arena_core.domain.text import inert_text
from arena_core.protocol.prompt import Prompt
from arena_core.site import boards as boards_module
from arena_core.site import exports, fields, indexes, pairwise, tables
from arena_core.site.build import SiteBuild
from arena_core.site.charts import DrawnSeries, RangeChart
from arena_core.site.cohort_tables import cohort_rows, cohort_tables
from arena_core.site.collect import (
    CohortView,
    DecisionView,
    FamilyView,
    LeaderboardData,
)
from arena_core.site.costs import CostSummary, Spend, family_costs, per_forecast, summary, weekly
from arena_core.site.feed import FeedItem
from arena_core.site.markets import MarketView, price_charts
from arena_core.site.panel_design import PanelWeek, panel_page
from arena_core.site.reliability import reliability_diagram
from arena_core.site.results import forecast_results, trade_results
from arena_core.site.schema_panel import PANEL_TABLES
from arena_core.site.series import cohort_charts
from arena_core.site.table_memo import Table, TableMemo, joined
from arena_core.site.universes import run_weeks

HERE = Path(__file__).parent
RECENT_DECISIONS = 5
EMPTY_CALIBRATION = Calibration((), (), None, None)
RECENT_COHORTS = 12  # rows of a model page's cohort table: page weight stays flat with history
# The figures of a live cohort's JSON (``site/live.py``), named on the data page.
LIVE_AGENT_FIGURES = (
    "cash", "positions_value", "total_value", "total_pnl", "total_pnl_pct", "brier", "trades",
)  # fmt: skip
LIVE_POSITION_FIGURES = ("status", "shares", "price", "value", "realized_pnl")


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


NEEDS = re.compile(
    r"^(\d+) of (\d+) (weeks|events|matured cohorts|matured forecasts|cohorts) needed$"
)
NEEDS_UNITS = {
    "weeks": "wk",
    "events": "events",
    "matured cohorts": "cohorts",
    "matured forecasts": "forecasts",
    "cohorts": "cohorts",
}


def _short_needs(text: str) -> str:
    """What an interval still needs, short enough for a table cell: "3/8 wk"."""
    found = NEEDS.match(text)
    if found is None:
        return text.removesuffix(" needed")
    have, need, unit = found.groups()
    return f"{have}/{need} {NEEDS_UNITS[unit]}"


def _short_name(name: str) -> str:
    """A display name on one line of a table: the row's badge already says "stand-in" or
    "baseline"."""
    return name.removesuffix(" (simulated)").removesuffix(" stand-in").removesuffix(" (baseline)")


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
        short_needs=_short_needs,
        short_name=_short_name,
        when=_when,
        marks=_marks,
    )
    return env


def _marks(series: DrawnSeries) -> Markup:
    """A series' hover marks as SVG, as the chart macro would print them one by one (each
    text made inert, then escaped; the coordinates are numbers): drawn here, a page of charts
    prints a few thousand values fewer through the template."""
    color = escape(_inert(series.color))
    return Markup(
        "".join(
            f'<circle class="mark" cx="{m.x!r}" cy="{m.y!r}" r="3.5" fill="{color}">'
            f"<title>{escape(_inert(m.title))}</title></circle>"
            for m in series.marks
        )
    )


class SiteRenderer:
    def __init__(
        self,
        now: datetime,
        *,
        universe_size: int = 500,
        horizon: int = 5,
        build: SiteBuild | None = None,
        operator: str = "",
        tables: TableMemo | None = None,
    ) -> None:
        """``tables``: which site-wide tables are published as they would be written now (left
        out of the files); without one, every table is written."""
        self._tables = tables or TableMemo({})
        self._env = environment()
        self._now = now
        self._operator = operator
        self._common = {
            "now": now,
            "build": build or SiteBuild(),
            "csp": META_CONTENT_SECURITY_POLICY,
            "universe_size": universe_size,
            "horizon": horizon,
            "recent_cohorts": RECENT_COHORTS,
            "panel": {**panel_page(), "clip": (P_MIN, P_MAX)},
        }

    def page(self, template: str, depth: int, **context: Any) -> bytes:
        root = "../" * depth
        html = self._env.get_template(template).render(root=root, **self._common, **context)
        return html.encode()

    def home_files(
        self,
        boards: Sequence[LeaderboardData],
        cohorts: Sequence[Cohort],
        *,
        returns: Sequence[RangeChart] = (),
        feed: Sequence[FeedItem] = (),
        costs: Sequence[dict[str, Any]] = (),
        spend: Spend | None = None,
    ) -> dict[str, bytes]:
        """The home page and every site-wide table its leaderboards are computed from and
        show: what every publication regenerates, after every snapshot (only the changed ones
        are uploaded), so the published tables always reproduce the published board. The same
        inputs give the same bytes, whichever publication renders them. ``spend``: the
        families' costs (``costs.family_costs`` of ``costs``) when known."""
        current = boards[0]
        spend = family_costs(boards, costs) if spend is None else spend
        files = {
            "index.html": self.page(
                "index.html.j2",
                0,
                title="Leaderboard",
                boards=boards,
                returns=returns,
                feed=feed,
                spend=board_costs(boards, spend),
                as_of=values_as_of(boards),
                rules=current.rules,
                cohorts=cohorts,
                methodology_version=current.methodology,
                versions=[b.methodology for b in boards],
            )
        }
        for table in global_tables(boards, self._tables):
            files.update(self._tables.files("data", table))
        return files

    def global_files(
        self,
        boards: Sequence[LeaderboardData],
        cohorts: Sequence[Cohort],
        *,
        returns: Sequence[RangeChart] = (),
        feed: Sequence[FeedItem] = (),
        costs: Sequence[dict[str, Any]] = (),
        spend: Spend | None = None,
        universe_weeks: Sequence[date] = (),
        releases: Sequence[LineupRelease] = (),
        panel_weeks: Sequence[PanelWeek] = (),
    ) -> dict[str, bytes]:
        """Every site-wide page and table: one leaderboard per methodology version (the current
        one first), each with its own statistics; the model pages show each version apart.
        ``spend``: the families' costs (``costs.family_costs`` of ``costs``) when known."""
        current = boards[0]
        families = family_costs(boards, costs) if spend is None else spend
        spend_shown = board_costs(boards, families)
        starts = {c.cohort_id: c.week_start.date() for c in cohorts}
        common = {
            "rules": current.rules,
            "cohorts": cohorts,
            "methodology_version": current.methodology,
            "versions": [b.methodology for b in boards],
        }
        files = self.home_files(
            boards, cohorts, returns=returns, feed=feed, costs=costs, spend=families
        )
        files |= {
            "methodology.html": self.page(
                "methodology.html.j2",
                0,
                title="Methodology",
                validity=validity.results(),
                validity_tables=validity.all_tables(validity.results()),
                realistic=validity.realistic_results(),
                realistic_tables=validity.realistic_tables(validity.realistic_results()),
                panel_weeks=panel_weeks,
                **common,
            ),
            "data/index.html": self.page(
                "data.html.j2",
                1,
                title="Data",
                tables=exports.TABLES,
                global_tables=tables.GLOBAL_TABLES,
                field_of=fields.field,
                keys=fields.KEYS,
                foreign=fields.FOREIGN_KEYS,
                cohort_tables=cohort_tables,
                panel_tables=tuple(PANEL_TABLES),
                weeks=universe_weeks,
                live_figures=(LIVE_AGENT_FIGURES, LIVE_POSITION_FIGURES),
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
        files.update(self._index_pages(boards, cohorts, universe_weeks, releases))
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
                spend=spend_shown,
                weekly_costs=weekly([r for r in costs if r["family_id"] == family_id], starts),
                cohort_models=cohort_models(family_id, cohorts, costs),
            )
        for name in ("style.css", "app.js", "favicon.svg"):
            files[f"static/{name}"] = (HERE / "static" / name).read_bytes()
        return files

    def _index_pages(
        self,
        boards: Sequence[LeaderboardData],
        cohorts: Sequence[Cohort],
        universe_weeks: Sequence[date],
        releases: Sequence[LineupRelease],
    ) -> dict[str, bytes]:
        """Calibration side by side, the models, cohorts, about and changelog pages."""
        return {
            "calibration.html": self.page(
                "calibration.html.j2",
                0,
                title="Calibration",
                sections=indexes.calibration_sections(boards),
            ),
            "models/index.html": self.page(
                "models_index.html.j2", 1, title="Models", models=indexes.model_entries(boards)
            ),
            "cohorts/index.html": self.page(
                "cohorts_index.html.j2",
                1,
                title="Cohorts",
                cohorts=cohorts,
                universe_weeks=set(universe_weeks),
            ),
            "about.html": self.page("about.html.j2", 0, title="About", operator=self._operator),
            "changelog.html": self.page(
                "changelog.html.j2",
                0,
                title="Changelog",
                entries=indexes.changelog(cohorts, releases),
            ),
        }

    def markets_index(self, rows: Sequence[dict[str, Any]]) -> dict[str, bytes]:
        """The markets page, from the markets table's rows (every market so far)."""
        listed = indexes.listed_markets(rows)
        page = self.page("markets_index.html.j2", 1, title="Markets", rows=listed, total=len(rows))
        return {"markets/index.html": page}

    def cohort_files(self, view: CohortView, *, tables: bool = True) -> dict[str, bytes]:
        """The cohort's and its agents' pages; with ``tables``, its data files and (when its
        decisions were read in full) its decision pages."""
        cohort_id = view.cohort.cohort_id
        ranked = view.ranked_agents()
        done = view.cohort.status is CohortStatus.COMPLETED
        end = view.cohort.completed_at if done and view.cohort.completed_at else self._now
        charts = cohort_charts([(a.agent.display_name, a.hourly) for a in ranked], end)
        moments = [a.latest.taken_at for a in view.agents if a.latest is not None]
        files = {
            f"cohorts/{cohort_id}/index.html": self.page(
                "cohort.html.j2",
                2,
                title=f"Cohort {cohort_id}",
                view=view,
                agents=ranked,
                charts=charts,
                tables=cohort_tables(view.cohort),
                weeks=run_weeks([view.cohort], end),
                final=done,
                values_as_of=max(moments, default=None),
            )
        }
        for agent in view.agents:
            files[f"cohorts/{cohort_id}/{agent.agent.agent_id}.html"] = self.page(
                "agent.html.j2",
                2,
                title=f"{agent.agent.display_name} in {cohort_id}",
                view=agent,
                cohort=view.cohort,
                values_as_of=agent.latest.taken_at if agent.latest else None,
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
        agents = {a.agent.agent_id: a for a in view.agents}
        files = {}
        for details in view.details or ():
            record = details.record
            decision_id = record.decision_id
            mine = agents.get(record.agent_id)
            files[f"decisions/{decision_id}.html"] = self.page(
                "decision.html.j2",
                1,
                title=f"Decision {decision_id}",
                d=details,
                agent=mine.agent if mine else None,
                view=view,
                results=trade_results(mine) if mine else {},
                forecasts=forecast_results(view, record.agent_id, record.week),
                commitment=commitment_key(
                    decision_id, record.outcome.commitment if record.outcome else None
                ),
                log_key=LOG_KEY,
            )
            prompt = Prompt(system=details.system_prompt, user=details.user_prompt)
            files[f"decisions/{decision_id}.prompt.txt"] = prompt.transcript().encode()
        return files


def board_costs(
    boards: Sequence[LeaderboardData], spend: Spend
) -> dict[tuple[str, str], tuple[CostSummary, Decimal | None]]:
    """Per (methodology, family): what its decisions cost over the leaderboard's cohorts
    (``costs.family_costs``), and dollars per scored forecast (under v1+panel, per scored
    panel forecast)."""
    found = {}
    for board in boards:
        for view in board.families:
            family = view.spec.family_id
            cost = spend.get((board.methodology, family)) or summary(())
            row = board.row(family)
            forecasts = row.result.resolved if row and row.result else 0
            found[(board.methodology, family)] = (cost, per_forecast(cost, forecasts))
    return found


def values_as_of(boards: Sequence[LeaderboardData]) -> datetime | None:
    """The newest snapshot the leaderboards show: the time their values are from."""
    return max((b.as_of for b in boards if b.as_of is not None), default=None)


def global_tables(boards: Sequence[LeaderboardData], memo: TableMemo | None = None) -> list[Table]:
    """Every site-wide table: the input tables as published, then what is computed from them,
    each holding the rows of every leaderboard (the current methodology first). The computed
    tables that show only what the kept statistics decide are keyed on them (``memo``): a
    publication that computed no statistic neither formats nor serializes them."""
    memo = memo or TableMemo({})
    found = {
        name: joined(name, [b.inputs.get(name) or Table.of(name, []) for b in boards])
        for name in tables.INPUT_TABLES
    }
    results = [b.result for b in boards]
    static = _static_key(results)
    for name in tables.OUTPUT_TABLES:
        rows = functools.partial(tables.output_rows, name, results)
        found[name] = memo.keyed(name, rows, static if name in tables.KEPT_OUTPUTS else None)
    return [found[name] for name in tables.GLOBAL_TABLES]


def _static_key(results: Sequence[boards_module.BoardResult]) -> str | None:
    """What the kept statistics of every board were computed from, or None when some board's
    were computed from what is not kept (the panel's)."""
    keys = [r.key for r in results]
    if any(k is None for k in keys):
        return None
    return hashlib.sha256("\0".join([code_digest(), *(k or "" for k in keys)]).encode()).hexdigest()


def cohort_models(
    family_id: str, cohorts: Sequence[Cohort], costs: Sequence[dict[str, Any]]
) -> dict[str, tuple[str, str]]:
    """Per cohort of the family: the provider model id its lineup asked for, and the ids the
    provider reported answering (from the costs table; empty before any reply)."""
    found: dict[str, tuple[str, str]] = {}
    for cohort in cohorts:
        spec = next((s for s in cohort.lineup if s.family_id == family_id), None)
        if spec is not None:
            found[cohort.cohort_id] = (spec.model_id, "")
    for row in costs:
        if row["family_id"] == family_id and row["cohort_id"] in found:
            asked, answered = found[row["cohort_id"]]
            names = set(answered.split()) | set(str(row.get("answered_by") or "").split())
            found[row["cohort_id"]] = (asked, " ".join(sorted(names)))
    return found


def commitment_key(decision_id: str, sha256: str | None) -> str | None:
    """The key of a decision's committed record, when it has one (a succeeded decision)."""
    if sha256 is None:
        return None
    try:
        return decision_key(decision_id, sha256)
    except ValueError:  # a record stored before commitments existed cannot name one
        return None


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
                "primary": pairwise.primary_lines(shown.primary, names),
                "primary_alpha": shown.primary.alpha if shown.primary else None,
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
