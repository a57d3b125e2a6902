"""Every exported column's type, unit and precision, and every table's keys: what the exports
format numbers with (one precision per column) and what ``datapackage.json`` declares.

Types follow the Frictionless Table Schema (string, integer, number, boolean, datetime). A
column's type comes from its name, with the few names that mean different things in different
tables overridden per table. Numbers are written with a fixed number of decimal places per
column, chosen so that no stored value loses a digit: cents for dollars, micro-units for prices
and shares, twelve places for forecasts and bet scores (kept to the trillionth), six for
computed statistics.
"""

from __future__ import annotations

from dataclasses import dataclass

BOOLEAN = frozenset(
    {
        "tied_with_leader",
        "stand_in",
        "fallback",
        "won",
        "clipped",
        "missing",
        "coherent",
        "yes_side",
        "split",
        "indeterminate",
        "matured",
        "completed",
        "asked_by_panel",
    }
)
INTEGER = frozenset(
    {
        "rank",
        "rank_best",
        "rank_worst",
        "cohorts",
        "forecasts",
        "scored_cohorts",
        "resolved_bets",
        "trades",
        "min_forecasts",
        "min_cohorts",
        "min_weeks",
        "min_events",
        "weeks",
        "events",
        "panel_events",
        "more_weeks",
        "units",
        "clusters",
        "more_needed",
        "bin",
        "count",
        "week",
        "executed",
        "rejected",
        "replies",
        "tokens_in",
        "tokens_out",
        "latency_ms",
        "retries",
        "attempt",
        "transport_attempts",
        "index",
        "disputes",
        "captures",
        "positions",
        "settled_positions",
        "outcome",
        "panel_forecasts",
        "panel_weeks",
        "coherence_trades",
        "coherent_trades",
        "bet_forecasts",
        "requested",
        "eligible",
        "stratum_quota",
        "stratum_eligible",
        "decisions",
    }
)
DATETIME = frozenset(
    {
        "bet_at",
        "closes_at",
        "snapshot_at",
        "completed_at",
        "executed_at",
        "opened_at",
        "settled_at",
        "scored_at",
        "taken_at",
        "end_date",
        "resolved_at",
        "run_at",
        "week_start",
    }
)
# Per table: a name that means something else there (a count here, a flag there).
OVERRIDES: dict[tuple[str, str], str] = {
    ("instructions", "executed"): "boolean",
    ("panel_leaderboard", "missing"): "integer",
    ("panel_leaderboard", "clipped"): "integer",
}
# Numbers: (unit, decimal places); anything numeric not named is a computed statistic.
DOLLARS = ("USD", 2)
PRICE = ("USD per share (a probability)", 6)
PROBABILITY = ("probability", 12)
UNITS: dict[str, tuple[str, int | None]] = {
    **dict.fromkeys(
        (
            "total_pnl",
            "cash",
            "positions_value",
            "total_value",
            "cash_before",
            "cash_after",
            "cost_basis_sold",
            "realized_pnl",
            "cost_basis",
            "payout",
            "filled_amount",
            "volume",
        ),
        DOLLARS,
    ),
    "amount": DOLLARS,
    "cost_usd": ("USD", 8),
    **dict.fromkeys(("price", "avg_entry_price", "mark_price", "market_price", "yes_price"), PRICE),
    **dict.fromkeys(("market_p_yes",), PRICE),
    **dict.fromkeys(("p_yes", "stated", "forecast", "implied_confidence"), PROBABILITY),
    "shares": ("shares", 6),
    "marked_value": ("USD", 12),  # shares x price, exactly: positions_value rounds their sum
    "total_pnl_pct": ("percent", 4),
    "return_pct": ("percent", 4),
    "pnl_pct": ("percent", 6),
    "percentage": ("percent", None),  # as the model asked it
}
PER_TABLE_UNITS: dict[tuple[str, str], tuple[str, int | None]] = {
    ("instructions", "amount"): ("USD", None),  # as the model asked it
    ("bet_scores", "brier"): ("Brier score", 12),
    ("bet_scores", "market_brier"): ("Brier score", 12),
    ("bet_scores", "log_score"): ("natural log", 12),
    ("agents", "brier"): ("Brier score", 12),
    ("snapshots", "brier"): ("Brier score", 12),
    ("universe", "p_yes"): PRICE,
    ("panel_questions", "p_yes"): PRICE,
    ("forecasts", "market_p_yes"): PRICE,
    **{
        ("panel_scores", name): ("Brier score" if "brier" in name else "score", 12)
        for name in ("brier", "market_brier", "log_score", "baseline_score", "peer_score")
    },
}
STATISTIC_PLACES = 6


@dataclass(frozen=True)
class Field:
    name: str
    type: str  # string, integer, number, boolean or datetime
    unit: str | None
    places: int | None  # decimal places every number of the column is written with


def field(table: str, name: str) -> Field:
    kind = OVERRIDES.get((table, name))
    if kind is None:
        if name in BOOLEAN:
            kind = "boolean"
        elif name in INTEGER:
            kind = "integer"
        elif name in DATETIME:
            kind = "datetime"
    if kind is None and name.endswith("needs"):
        kind = "string"  # what a figure still needs, in words
    if kind is not None:
        return Field(name, kind, None, None)
    unit = PER_TABLE_UNITS.get((table, name)) or UNITS.get(name)
    if unit is not None:
        return Field(name, "number", unit[0], unit[1])
    if _is_statistic(name):
        return Field(name, "number", _statistic_unit(name), STATISTIC_PLACES)
    return Field(name, "string", None, None)


STATISTICS = (
    "brier",
    "log_score",
    "skill",
    "relative_log",
    "return",
    "win_rate",
    "difference",
    "first_share",
    "confidence",
    "ece",
    "provisional",
    "p_value",
    "p_holm",
    "p_adjusted",
    "estimate",
    "detectable",
    "bin_low",
    "bin_high",
    "mean_forecast",
    "observed",
    "wilson",
    "peer_score",
    "baseline_score",
    "coherence_share",
    "median_size_to_kelly",
    "fraction",
    "kelly",
    "size_to_kelly",
    "market_log_score",
)


def _is_statistic(name: str) -> bool:
    return any(name.startswith(s) or name.endswith(s) for s in STATISTICS) or name.startswith(
        ("market_brier", "bet_brier")
    )


def _statistic_unit(name: str) -> str:
    if "brier" in name and "skill" not in name:
        return "Brier score"
    if name.startswith(("peer_score", "baseline_score", "relative_log", "provisional_peer")):
        return "Metaculus points (x100)"
    if "log_score" in name:
        return "natural log"
    if name.startswith(("return", "provisional_return")):
        return "percent"
    return "ratio"


KEYS: dict[str, tuple[str, ...]] = {
    "leaderboard": ("methodology", "family_id"),
    "forecasts": ("trade_id",),
    "family_returns": ("methodology", "family_id", "cohort_id"),
    "position_returns": ("position_id",),
    "families": ("methodology", "family_id"),
    "comparisons": ("methodology", "comparison", "family_id", "measure"),
    "pairwise": ("methodology", "family_a", "family_b", "measure"),
    "breakdowns": ("methodology", "family_id", "dimension", "group"),
    "calibration": ("methodology", "family_id", "forecaster", "bin"),
    "panel_leaderboard": ("methodology", "family_id"),
    "panel_scores": ("cohort_id", "week", "market_id", "agent_id"),
    "markets": ("market_id",),
    "universe": ("market_id",),
    "agents": ("agent_id",),
    "decisions": ("decision_id",),
    "trades": ("trade_id",),
    "positions": ("position_id",),
    "settlements": ("settlement_id",),
    "bet_scores": ("trade_id",),
    "snapshots": ("agent_id", "taken_at"),
    "prompts": ("decision_id",),
    "replies": ("decision_id", "attempt"),
    "instructions": ("decision_id", "index"),
    "panel_questions": ("cohort_id", "week", "market_id"),
    "panel_forecasts": ("decision_id", "market_id"),
    "costs": ("family_id", "cohort_id", "week"),
}
# (table, its columns) -> (the table referenced, its columns); cohort tables reference the
# same cohort's table.
FOREIGN_KEYS: dict[str, tuple[tuple[tuple[str, ...], str, tuple[str, ...]], ...]] = {
    "decisions": ((("agent_id",), "agents", ("agent_id",)),),
    "trades": (
        (("decision_id",), "decisions", ("decision_id",)),
        (("market_id",), "markets", ("market_id",)),
    ),
    "instructions": ((("decision_id",), "decisions", ("decision_id",)),),
    "prompts": ((("decision_id",), "decisions", ("decision_id",)),),
    "replies": ((("decision_id",), "decisions", ("decision_id",)),),
    "positions": (
        (("agent_id",), "agents", ("agent_id",)),
        (("market_id",), "markets", ("market_id",)),
    ),
    "settlements": ((("position_id",), "positions", ("position_id",)),),
    "bet_scores": ((("trade_id",), "trades", ("trade_id",)),),
    "snapshots": ((("agent_id",), "agents", ("agent_id",)),),
    "panel_forecasts": ((("decision_id",), "decisions", ("decision_id",)),),
    "forecasts": ((("market_id",), "markets", ("market_id",)),),
}
GLOBAL_REFERENCES = frozenset({"markets"})  # referenced tables that are site-wide
