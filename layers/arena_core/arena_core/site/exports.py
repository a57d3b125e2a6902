"""The public dataset: every table as CSV and JSON, and the schema describing every column.

Columns are declared once here; the CSV/JSON writers and the schema page both read them, so the
documentation cannot drift from the files. Money and probabilities are written as exact decimal
strings, times as ISO 8601 UTC.

Text comes from models (reasoning) and from Polymarket (questions, outcome names), so it is
hostile: in CSV, a text cell that a spreadsheet would run as a formula is prefixed with an
apostrophe (OWASP's advice on CSV injection), while numbers stay numbers; the JSON keeps the
text as it was. Neither ever holds a lone UTF-16 surrogate, so an export can always be encoded.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from arena_core.domain.text import clean_text

Row = Mapping[str, Any]

TABLES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "leaderboard": (
        "One row per model family (baselines marked), across all cohorts.",
        (
            (
                "rank",
                "Rank among LLM families by mean Brier (lower is better); baselines have none.",
            ),
            ("family_id", "Stable family id (join key)."),
            ("display_name", "Current display name of the family."),
            ("kind", "llm or baseline."),
            ("cohorts", "Cohorts the family has an agent in."),
            ("return_pct_mean", "Mean over its cohorts of (total value - 10,000) / 10,000 x 100."),
            ("total_pnl", "Sum over its cohorts of total value - 10,000, in dollars."),
            ("brier", "Mean Brier over its scored bets: (implied confidence - won)^2."),
            (
                "log_score",
                "Mean ln P(outcome) under the implied confidence (<= 0, higher is better).",
            ),
            ("brier_skill_vs_market", "1 - brier / mean Brier of the market price at bet time."),
            ("win_rate", "Share of scored bets whose side won."),
            ("resolved_bets", "Scored bets (buys on positions settled with a winner)."),
            ("trades", "Executed trades (buys and sells)."),
        ),
    ),
    "agents": (
        "One row per agent (a family in a cohort) at its latest snapshot.",
        (
            ("agent_id", "Agent id: cohort id and family id."),
            ("cohort_id", "Cohort id (c + week start date)."),
            ("family_id", "Family id."),
            ("display_name", "Family display name when the cohort opened."),
            ("kind", "llm or baseline."),
            ("model_id", "OpenRouter model id, or the baseline strategy."),
            ("cash", "Cash in dollars."),
            ("positions_value", "Open positions marked to market, in dollars."),
            ("total_value", "cash + positions_value."),
            ("total_pnl", "total_value - 10,000."),
            ("total_pnl_pct", "total_pnl / 10,000 x 100."),
            ("brier", "Mean Brier of the agent's scored bets (empty when none)."),
            ("resolved_bets", "Scored bets."),
            ("snapshot_at", "Time of the snapshot these values come from."),
        ),
    ),
    "decisions": (
        "One row per agent-week decision, with the model's reasoning.",
        (
            ("decision_id", "Agent id + week."),
            ("agent_id", "Agent id."),
            ("cohort_id", "Cohort id."),
            ("week", "Decision week (1 = the cohort's first Sunday)."),
            ("status", "succeeded, retryable_failure, failed or claimed."),
            ("action", "BET, SELL or HOLD."),
            ("fallback", "true when no valid reply came and HOLD was recorded instead."),
            ("fallback_reason", "Why the fallback happened."),
            ("reasoning", "The model's reasoning as sent."),
            ("model", "Model that actually answered."),
            ("provider", "Provider that actually answered."),
            ("executed", "Trades executed."),
            ("rejected", "Trades rejected by the rules."),
            ("replies", "Replies received (format retries included)."),
            ("error", "Error recorded on a failed attempt."),
        ),
    ),
    "trades": (
        "One row per executed buy or sell.",
        (
            ("trade_id", "Decision id + instruction index."),
            ("decision_id", "Decision that placed it."),
            ("agent_id", "Agent id."),
            ("cohort_id", "Cohort id."),
            ("position_id", "Position it opened, added to or reduced."),
            ("market_id", "Polymarket market id."),
            ("side", "YES, NO or the outcome name."),
            ("kind", "buy or sell."),
            ("amount", "Cash spent (buy) or received (sell), in dollars."),
            ("shares", "Shares bought or sold."),
            ("price", "Side-correct price per share at the run's snapshot."),
            ("cash_before", "Agent cash before the trade."),
            ("cash_after", "Agent cash after the trade."),
            ("implied_confidence", "Buy only: amount / (25% of cash_before)."),
            ("cost_basis_sold", "Sell only: cost basis removed from the position."),
            ("realized_pnl", "Sell only: amount - cost_basis_sold."),
            ("executed_at", "Decision run time."),
        ),
    ),
    "positions": (
        "One row per position, open or closed.",
        (
            ("position_id", "Position id."),
            ("agent_id", "Agent id."),
            ("cohort_id", "Cohort id."),
            ("market_id", "Polymarket market id."),
            ("side", "YES, NO or the outcome name."),
            ("status", "open, closed (sold), settled or cancelled (refunded)."),
            ("shares", "Shares held (at close: held when it settled)."),
            ("cost_basis", "Dollars still invested."),
            ("avg_entry_price", "cost_basis / shares."),
            ("mark_price", "Open only: side-correct price used for positions_value."),
            ("marked_value", "Open only: shares x mark_price."),
            ("realized_pnl", "Realized P/L from sells and settlement."),
            ("opened_at", "Time of the opening trade."),
        ),
    ),
    "settlements": (
        "One row per settled position.",
        (
            ("settlement_id", "Settlement id."),
            ("position_id", "Position settled."),
            ("agent_id", "Agent id."),
            ("cohort_id", "Cohort id."),
            ("market_id", "Polymarket market id."),
            ("side", "Side held."),
            (
                "kind",
                "won ($1/share), lost ($0), split ($0.50/share) or cancelled (refund at cost).",
            ),
            ("shares", "Shares settled."),
            ("cost_basis", "Cost basis at settlement."),
            ("payout", "Cash credited (a refund for cancelled)."),
            ("realized_pnl", "payout - cost_basis."),
            ("settled_at", "Settlement time."),
        ),
    ),
    "bet_scores": (
        "One row per scored buy (market resolved with a winner).",
        (
            ("trade_id", "The buy."),
            ("agent_id", "Agent id."),
            ("cohort_id", "Cohort id."),
            ("family_id", "Family id."),
            ("market_id", "Polymarket market id."),
            ("side", "Side bought."),
            ("amount", "Dollars spent."),
            ("cash_before", "Cash before the buy."),
            ("forecast", "Implied confidence: amount / (25% of cash_before)."),
            ("market_price", "Side price at bet time (the skill-score reference)."),
            ("won", "true when the side won."),
            ("brier", "(forecast - won)^2, to 12 decimal places."),
            ("market_brier", "(market_price - won)^2, to 12 decimal places."),
            (
                "log_score",
                "ln of the probability the forecast gave to what happened (clipped at 1e-12).",
            ),
            ("scored_at", "Settlement time."),
        ),
    ),
    "snapshots": (
        "Agent snapshots, hourly (the last snapshot of each hour).",
        (
            ("agent_id", "Agent id."),
            ("taken_at", "Exact snapshot time."),
            ("cash", "Cash."),
            ("positions_value", "Marked positions."),
            ("total_value", "cash + positions_value."),
            ("total_pnl", "total_value - 10,000."),
            ("total_pnl_pct", "total_pnl / 10,000 x 100."),
            ("brier", "Mean Brier of scored bets so far."),
            ("resolved_bets", "Scored bets so far."),
        ),
    ),
}


# A spreadsheet reads a cell starting with one of these as a formula (tab and carriage return
# because it trims them first, exposing what follows).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
FORMULA_GUARD = "'"  # spreadsheets take a leading apostrophe as "text": shown as is, never run


def cell(value: Any) -> Any:
    """A JSON-safe value: Decimals as exact strings, times in ISO 8601, enums as values, text
    with any lone surrogate replaced by U+FFFD."""
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, Enum):
        return cell(value.value)
    if isinstance(value, str):
        return clean_text(value)
    return value


def _is_text(value: Any) -> bool:
    """Whether ``value`` is text (a number is not, though a negative one starts with -)."""
    return isinstance(value, str) or (isinstance(value, Enum) and isinstance(value.value, str))


def csv_cell(value: Any) -> str:
    """One CSV field: empty for None, booleans in lowercase, otherwise ``cell``'s text; text
    that would start a formula gets a leading apostrophe. The decision is made on the value's
    type, before ``cell`` turns a Decimal such as -12.50 into a string."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    text = str(cell(value))
    if _is_text(value) and text.startswith(FORMULA_TRIGGERS):
        return FORMULA_GUARD + text
    return text


def columns(table: str) -> list[str]:
    return [name for name, _ in TABLES[table][1]]


def project(table: str, rows: Iterable[Row]) -> list[dict[str, Any]]:
    """The table's columns of each row, JSON-safe (``cell``)."""
    names = columns(table)
    return [{c: cell(row.get(c)) for c in names} for row in rows]


def to_csv(table: str, rows: Sequence[Row]) -> bytes:
    names = columns(table)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    writer.writerows([csv_cell(row.get(c)) for c in names] for row in rows)
    return buffer.getvalue().encode()


def to_json(table: str, rows: Sequence[Row]) -> bytes:
    return json.dumps(project(table, rows), indent=1, ensure_ascii=False).encode()


def table_files(prefix: str, table: str, rows: Sequence[Row]) -> dict[str, bytes]:
    return {
        f"{prefix}/{table}.csv": to_csv(table, rows),
        f"{prefix}/{table}.json": to_json(table, rows),
    }
