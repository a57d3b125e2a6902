"""The prompts every agent of a run receives (methodology v1 §7-8): same structure, same data.

The market list is a pipe-separated table, not JSON: 500 markets go to every agent every week,
and a table carries the same facts in a fraction of the bytes. Order and formatting are
deterministic (universe order, fixed decimals), and untrusted text (questions, outcome names,
ids) is flattened to one line with the column separator removed, so it cannot forge table rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal

from arena_core.domain.holdings import PositionLine
from arena_core.domain.market import Market, MarketStatus
from arena_core.domain.money import CENT
from arena_core.domain.panel import Panel, PanelMarket
from arena_core.domain.rules import MAX_BET_FRACTION, MIN_BET, max_bet

QUESTION_LIMIT = 160
ID_LIMIT = 128
PRICE_PLACES = Decimal("0.0001")

SYSTEM_PROMPT = f"""You are a forecasting agent in Forecaster Arena, a benchmark of how well language models forecast real events. You trade paper money on real Polymarket prediction markets.

Objective: grow your portfolio and be well calibrated. Buy the side of a market you think is underpriced; the bigger the bet, the more confident you are.

Rules:
- Minimum bet ${MIN_BET:.0f}. Maximum single bet {MAX_BET_FRACTION * 100:.0f}% of your current cash (shown as max_bet). Bets are executed in the order you list them and each one lowers your cash.
- One position per market per side: a second bet on the same side adds to that position.
- Binary markets have sides YES and NO; the table shows the YES price and NO costs 1 - YES. Other markets list named outcomes; the side is the outcome's name. You buy shares at the current price; a share pays $1 if its side wins and $0 if it loses.
- SELL sells a percentage (0 to 100] of one of your positions at the current price.
- A position that was sold or settled is gone; resolved markets settle automatically.

Scoring: calibration (Brier score) and value (profit and loss). Your implied confidence in a bet is amount / max_bet: betting max_bet means you are certain. Brier = (confidence - outcome)^2, lower is better.

Answer with exactly one JSON object and nothing else, in one of these forms:
{{"action": "BET", "bets": [{{"market_id": "<id>", "side": "YES", "amount": 500}}], "reasoning": "<why>"}}
{{"action": "SELL", "sells": [{{"position_id": "<id>", "percentage": 50}}], "reasoning": "<why>"}}
{{"action": "HOLD", "reasoning": "<why>"}}"""


PANEL_RULES = """

Forecast panel (methodology v1+panel): the message lists the panel's markets. In the same JSON object, add your probability that each one resolves YES (for a market with named outcomes: the first one), one entry per panel market:
"forecasts": [{"market_id": "<id>", "p_yes": 0.62}, ...]
Forecasts do not trade and do not change the trading rules. At resolution they are scored with proper scoring rules (Brier and log score), against the market's price and against the other models: say what you believe."""


@dataclass(frozen=True)
class Prompt:
    system: str
    user: str

    def transcript(self) -> str:
        """Both prompts as one text: what the audit stores and ``arena preview`` prints."""
        return f"{SYSTEM_HEADER}{self.system}{USER_HEADER}{self.user}\n"


SYSTEM_HEADER = "=== system ===\n"
USER_HEADER = "\n=== user ===\n"


def split_transcript(text: str) -> tuple[str, str]:
    """The system and user prompts of a stored transcript (the inverse of ``transcript``). The
    system prompt is ours and never holds the user header, so its first occurrence splits."""
    body = text.removeprefix(SYSTEM_HEADER)
    system, found, user = body.partition(USER_HEADER)
    return (system, user.removesuffix("\n")) if found else (text, "")


def one_line(text: str, limit: int = QUESTION_LIMIT) -> str:
    """Untrusted text as one table cell: no newlines, no column separators, bounded length."""
    flat = " ".join(text.replace("|", "/").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def price_text(price: Decimal | None) -> str:
    if price is None:
        return "?"
    if Decimal(0) < price < PRICE_PLACES:
        return "<0.0001"
    rounded = price.quantize(PRICE_PLACES, rounding=ROUND_HALF_EVEN).normalize()
    return f"{rounded:f}"


def money(amount: Decimal) -> str:
    return f"{amount.quantize(CENT, rounding=ROUND_HALF_EVEN):f}"


def _signed(amount: Decimal) -> str:
    text = money(amount)
    return text if text.startswith("-") else f"+{text}"


def _prices(market: Market) -> str:
    if market.is_binary:
        return f"YES {price_text(market.outcomes[0].price)}"
    return "; ".join(f"{one_line(o.name, 40)} {price_text(o.price)}" for o in market.outcomes)


def _market_row(market: Market) -> str:
    volume = f"{market.volume:.0f}" if market.volume is not None else "?"
    closes = market.end_date.date().isoformat() if market.end_date else "?"
    category = one_line(market.category, 30) if market.category else "-"
    return "|".join(
        (
            one_line(market.market_id, ID_LIMIT),
            one_line(market.question),
            category,
            _prices(market),
            volume,
            closes,
        )
    )


def _position_row(line: PositionLine) -> str:
    note = "" if line.market_status is MarketStatus.OPEN else f" ({line.market_status.value})"
    return "|".join(
        (
            one_line(line.position_id, ID_LIMIT),
            one_line(line.market_id, ID_LIMIT),
            one_line(line.side, 40),
            f"{line.shares.normalize():f}",
            price_text(line.avg_price),
            price_text(line.price) + note,
            money(line.value),
            _signed(line.unrealized_pnl),
        )
    )


def _panel_row(market: PanelMarket) -> str:
    return "|".join(
        (
            one_line(market.market_id, ID_LIMIT),
            one_line(market.question),
            one_line(market.category, 30),
            market.end_date.date().isoformat(),
            price_text(market.p_yes),
        )
    )


def _panel_lines(panel: Panel) -> list[str]:
    return [
        "",
        f"FORECAST PANEL ({len(panel.markets)} markets; state p_yes for each; "
        "id|question|category|closes|yes_price):",
        *(_panel_row(m) for m in panel.markets),
    ]


def build_prompt(
    *,
    now: datetime,
    cohort_id: str,
    week: int,
    cash: Decimal,
    positions: Sequence[PositionLine],
    markets: Sequence[Market],
    panel: Panel | None = None,
) -> Prompt:
    """The system and user prompts for one agent of one decision run; with a ``panel``
    (methodology v1+panel) the panel follows the portfolio and the reply carries forecasts."""
    lines = [
        f"Date: {now.strftime('%Y-%m-%d %H:%M')} UTC. Cohort {cohort_id}, decision week {week}.",
        "",
        "PORTFOLIO",
        f"cash={money(cash)} max_bet={money(max_bet(cash))} min_bet={money(MIN_BET)}",
    ]
    if positions:
        lines.append(
            f"{len(positions)} open positions "
            "(position_id|market_id|side|shares|avg_price|price_now|value|unrealized_pnl):"
        )
        lines.extend(_position_row(p) for p in positions)
    else:
        lines.append("no open positions")
    if panel is not None:
        lines += _panel_lines(panel)
    lines += [
        "",
        f"MARKETS ({len(markets)}, highest volume first; id|question|category|prices|volume_usd|closes):",
        *(_market_row(m) for m in markets),
        "",
        "Decide now: one JSON object (BET, SELL or HOLD) with your reasoning"
        + (" and your forecasts for every panel market." if panel is not None else "."),
    ]
    system = SYSTEM_PROMPT + (PANEL_RULES if panel is not None else "")
    return Prompt(system=system, user="\n".join(lines))
