"""What the models cost, where people look: tokens, dollars and waiting time per family, per
cohort and week, from the decisions' recorded usage (the provider's ``usage.cost``).

The live cohorts' rows are computed from their decisions (already read for their pages); the
rows of cohorts completed earlier are carried over from the published table, so a publication
reads one object for them, however long the history. The leaderboard regenerated after every
snapshot reads no decision, so the table is as published: what each family's row shows of it
is kept with the table's digest (``FamilyCosts``) and the table is not read again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from arena_core.dataset.records import CohortView

Row = dict[str, Any]
COSTS = "costs"


def cost_rows(views: Sequence[CohortView]) -> list[Row]:
    """One row per family, cohort and decision week of the live cohorts."""
    rows: dict[tuple[str, str, int], Row] = {}
    for view in views:
        for agent in view.agents:
            for decision in agent.decisions:
                replies = decision.outcome.responses if decision.outcome else ()
                key = (agent.agent.family_id, view.cohort.cohort_id, decision.record.week)
                row = rows.setdefault(
                    key,
                    {
                        "family_id": key[0],
                        "cohort_id": key[1],
                        "week": key[2],
                        "methodology": view.cohort.methodology_version,
                        "model_id": agent.agent.model_id,
                        "answered_by": "",
                        "decisions": 0,
                        "replies": 0,
                        "tokens_in": 0,
                        "tokens_out": 0,
                        "cost_usd": Decimal(0),
                        "latency_ms": 0,
                    },
                )
                reported = {r.model for r in replies if r.model}
                if decision.outcome and decision.outcome.model:
                    reported.add(decision.outcome.model)
                known = set(str(row["answered_by"]).split())
                row["answered_by"] = " ".join(sorted(known | reported))
                row["decisions"] += 1
                row["replies"] += len(replies)
                row["tokens_in"] += sum(r.prompt_tokens for r in replies)
                row["tokens_out"] += sum(r.completion_tokens for r in replies)
                row["cost_usd"] += sum((r.cost or Decimal(0) for r in replies), Decimal(0))
                row["latency_ms"] += sum(r.latency_ms for r in replies)
    # Every cost at the published precision, so a row reads the same from the decisions or as
    # a sealed cohort kept it.
    return [
        {**rows[k], "cost_usd": rows[k]["cost_usd"].quantize(COST_PLACES)} for k in sorted(rows)
    ]


COST_PLACES = Decimal("1e-8")  # the published precision of cost_usd (dataset/fields.py)


@dataclass(frozen=True)
class CostSummary:
    decisions: int
    tokens_in: int
    tokens_out: int
    cost_usd: Decimal
    weeks: int

    @property
    def per_decision(self) -> Decimal | None:
        return self.cost_usd / self.decisions if self.decisions else None


def summary(rows: Iterable[Row]) -> CostSummary:
    found = list(rows)
    return CostSummary(
        decisions=sum(int(r["decisions"]) for r in found),
        tokens_in=sum(int(r["tokens_in"]) for r in found),
        tokens_out=sum(int(r["tokens_out"]) for r in found),
        cost_usd=sum((Decimal(str(r["cost_usd"])) for r in found), Decimal(0)),
        weeks=len({(r["cohort_id"], r["week"]) for r in found}),
    )


def per_forecast(cost: CostSummary, forecasts: int) -> Decimal | None:
    """Dollars per scored forecast: what a leaderboard can be sorted by."""
    return cost.cost_usd / forecasts if forecasts and cost.decisions else None


def run_date(row: Row, week_starts: dict[str, date]) -> date | None:
    """The date of the decision run a row's week falls on (its cohort's start + weeks)."""
    start = week_starts.get(str(row["cohort_id"]))
    return start + timedelta(weeks=int(row["week"]) - 1) if start else None


def weekly(rows: Iterable[Row], week_starts: dict[str, date]) -> list[tuple[date, CostSummary]]:
    """A family's cost per decision run (its agents of every cohort that week), newest first."""
    by_run: dict[date, list[Row]] = {}
    for row in rows:
        found = run_date(row, week_starts)
        if found is not None:
            by_run.setdefault(found, []).append(row)
    return [(d, summary(by_run[d])) for d in sorted(by_run, reverse=True)]
