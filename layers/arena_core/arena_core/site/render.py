"""Render the static site: views in (``dataset/records.py``, ``site/views.py``), files out
(path → bytes). Jinja2 with autoescape on for every template (``site/environment.py``); no
inline script or style: the pages work under ``default-src 'self'``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import Any

from arena_core.analysis import validity
from arena_core.constants import META_CONTENT_SECURITY_POLICY
from arena_core.dataset import board_inputs, exports, fields, tables
from arena_core.dataset.cohort_tables import cohort_rows, cohort_tables
from arena_core.dataset.costs import weekly
from arena_core.dataset.details import DecisionDetails
from arena_core.dataset.records import CohortView
from arena_core.dataset.schema_panel import PANEL_TABLES
from arena_core.dataset.universes import run_weeks
from arena_core.domain.cohort import Cohort, CohortStatus
from arena_core.domain.commitment_log import LOG_KEY
from arena_core.domain.panel import P_MAX, P_MIN
from arena_core.domain.releases import LineupRelease
from arena_core.protocol.prompt import Prompt
from arena_core.site import indexes
from arena_core.site.board_pages import (
    LIVE_AGENT_FIGURES,
    LIVE_POSITION_FIGURES,
    RECENT_COHORTS,
    board_costs,
    cohort_models,
    cohorts_json,
    commitment_key,
    model_sections,
    pairwise_sections,
    values_as_of,
)
from arena_core.site.build import SiteBuild
from arena_core.site.charts import RangeChart
from arena_core.site.costs import Spend, family_costs
from arena_core.site.environment import HERE, environment
from arena_core.site.feed import FeedItem
from arena_core.site.indexes import index_pages
from arena_core.site.markets import MarketView, price_charts
from arena_core.site.panel_design import PanelWeek, panel_page
from arena_core.site.paths import page_path
from arena_core.site.reasoning import mentioned
from arena_core.site.results import earned, forecast_results, trade_results
from arena_core.site.series import cohort_charts
from arena_core.site.views import LeaderboardData


class SiteRenderer:
    def __init__(
        self,
        now: datetime,
        *,
        universe_size: int = 500,
        horizon: int = 5,
        build: SiteBuild | None = None,
        operator: str = "",
    ) -> None:
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

    def home_page(
        self,
        boards: Sequence[LeaderboardData],
        cohorts: Sequence[Cohort],
        *,
        returns: Sequence[RangeChart] = (),
        feed: Sequence[FeedItem] = (),
        spend: Spend | None = None,
    ) -> dict[str, bytes]:
        """The home page: what every publication regenerates, after every snapshot. The same
        inputs give the same bytes, whichever publication renders them. ``spend``: the
        families' costs (``costs.family_costs``)."""
        current = boards[0]
        return {
            "index.html": self.page(
                "index.html.j2",
                0,
                title="Leaderboard",
                boards=boards,
                returns=returns,
                feed=feed,
                spend=board_costs(boards, spend or {}),
                as_of=values_as_of(boards),
                rules=current.rules,
                cohorts=cohorts,
                methodology_version=current.methodology,
                versions=[b.methodology for b in boards],
            )
        }

    def global_pages(
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
        """Every site-wide page (the tables are ``global_tables``'): one leaderboard per
        methodology version (the current one first), each with its own statistics; the model
        pages show each version apart. ``spend``: the families' costs (``costs.family_costs`` of
        ``costs``) when known."""
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
        files = self.home_page(boards, cohorts, returns=returns, feed=feed, spend=families)
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
            "data/cohorts.json": cohorts_json(cohorts),
            f"data/{board_inputs.SETTINGS}": board_inputs.settings_json(
                current.rules, [b.methodology for b in boards], self._now
            ),
        }
        files["pairwise.html"] = self.page(
            "pairwise.html.j2", 0, title="Every pair compared", sections=pairwise_sections(boards)
        )
        files.update(
            index_pages(
                self.page, boards, cohorts, universe_weeks, releases, operator=self._operator
            )
        )
        for family_id, sections in model_sections(boards).items():
            files[page_path("models", family_id)] = self.page(
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

    def markets_index(
        self, rows: Sequence[dict[str, Any]], names: Mapping[str, str]
    ) -> dict[str, bytes]:
        """The markets page, from the markets table's rows (every market so far); ``names``:
        each family's display name, its traders named by it and linked to its page."""
        listed = indexes.listed_markets(rows)
        page = self.page(
            "markets_index.html.j2", 1, title="Markets", rows=listed, total=len(rows), names=names
        )
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
            files[page_path("markets", view.market.market_id)] = self.page(
                "market.html.j2",
                1,
                title=view.market.question,
                view=view,
                price_charts=price_charts(view),
            )
        return files

    def decision_files(self, view: CohortView) -> dict[str, bytes]:
        """A page per decision, and the prompt it was sent (when the details were read)."""
        files: dict[str, bytes] = {}
        for details in view.details or ():
            files |= self.decision_pages(view, details)
        return files

    def decision_pages(self, view: CohortView, details: DecisionDetails) -> dict[str, bytes]:
        """One decision's page and the prompt it was sent."""
        record = details.record
        decision_id = record.decision_id
        mine = next((a for a in view.agents if a.agent.agent_id == record.agent_id), None)
        prompt = Prompt(system=details.system_prompt, user=details.user_prompt)
        results = trade_results(mine) if mine else {}
        decisions = mine.decisions if mine else []
        shown = next((d for d in decisions if d.record.decision_id == decision_id), None)
        named = shown.named if shown else mentioned(details.reasoning, view.market_questions())
        return {
            f"decisions/{decision_id}.html": self.page(
                "decision.html.j2",
                1,
                title=f"Decision {decision_id}",
                d=details,
                named=named,
                agent=mine.agent if mine else None,
                view=view,
                results=results,
                earned=earned(record, results),
                forecasts=forecast_results(view, record.agent_id, record.week),
                commitment=commitment_key(
                    decision_id, record.outcome.commitment if record.outcome else None
                ),
                log_key=LOG_KEY,
            ),
            f"decisions/{decision_id}.prompt.txt": prompt.transcript().encode(),
        }
