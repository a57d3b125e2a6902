"""Reading the decision prompt back: the portfolio, the open positions and the market table.

The stand-ins see exactly what a real model sees (``arena_core.protocol.prompt``), so they read
the same text: the ``cash=… max_bet=… min_bet=…`` line, the position rows
(``position_id|market_id|side|shares|avg_price|price_now|value|unrealized_pnl``) and the market
rows (``id|question|category|prices|volume_usd|closes``), and under v1+panel the forecast panel's
rows (``id|question|category|closes|yes_price``). A row that does not read cleanly is
skipped, as a careful model would pass over a market it cannot make sense of.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

PORTFOLIO = "PORTFOLIO"
MARKETS = "MARKETS ("
PANEL = "FORECAST PANEL ("
PANEL_FIELDS = 5
_NUMBERS = re.compile(r"(\w+)=(-?[0-9]+(?:\.[0-9]+)?)")
_POSITIONS = re.compile(r"^(\d+) open positions")
_DATE = re.compile(r"^Date: (.+?) UTC\.")
MARKET_FIELDS = 6
POSITION_FIELDS = 8


@dataclass(frozen=True)
class Quote:
    """One side an agent can buy: its name as the reply must spell it, the outcome it stands
    for (index into the market's outcomes, in Gamma order) and its price."""

    side: str
    outcome: int
    price: float


@dataclass(frozen=True)
class MarketRow:
    market_id: str
    quotes: tuple[Quote, ...]


@dataclass(frozen=True)
class PanelRow:
    """A panel market (methodology v1+panel): the reply states P(YES) for each."""

    market_id: str
    yes_price: float


@dataclass(frozen=True)
class PositionRow:
    position_id: str
    market_id: str
    side: str
    avg_price: float
    price_now: float | None  # None when unknown, or when the market is no longer open


@dataclass(frozen=True)
class PromptView:
    header: str  # "Date: … UTC. Cohort …, decision week N.": identifies the decision
    moment: str  # the date and time alone: the same for every agent of a decision run
    cash: Decimal
    min_bet: Decimal
    positions: tuple[PositionRow, ...]
    markets: tuple[MarketRow, ...]
    panel: tuple[PanelRow, ...] = ()


def is_prompt(text: str) -> bool:
    return PORTFOLIO in text and MARKETS in text


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def _price(text: str) -> float | None:
    """A tradable price: a plain number strictly between 0 and 1 ("?" and "<0.0001" are not)."""
    value = _decimal(text.strip())
    return float(value) if value is not None and 0 < value < 1 else None


def _quotes(cell: str) -> tuple[Quote, ...] | None:
    """``YES 0.42`` for a binary market (NO costs 1 - YES), else ``name price; name price``."""
    if cell.startswith("YES ") and ";" not in cell:
        yes = _price(cell.removeprefix("YES "))
        return None if yes is None else (Quote("YES", 0, yes), Quote("NO", 1, 1.0 - yes))
    quotes = []
    for index, part in enumerate(cell.split("; ")):
        name, _, price_text = part.rpartition(" ")
        price = _price(price_text)
        # A name cut short by the prompt ("…") cannot be bought back by that spelling.
        if not name or price is None or name.endswith("…"):
            return None
        quotes.append(Quote(name, index, price))
    return tuple(quotes) if len(quotes) >= 2 else None


def market_row(line: str) -> MarketRow | None:
    cells = line.split("|")
    if len(cells) != MARKET_FIELDS:
        return None
    quotes = _quotes(cells[3])
    return None if quotes is None else MarketRow(cells[0], quotes)


def position_row(line: str) -> PositionRow | None:
    cells = line.split("|")
    if len(cells) != POSITION_FIELDS:
        return None
    avg_price = _price(cells[4])
    if avg_price is None:
        return None
    # "0.31 (closed)": the market no longer trades, so there is nothing to sell into.
    price_now = _price(cells[5]) if " " not in cells[5] else None
    return PositionRow(cells[0], cells[1], cells[2], avg_price, price_now)


def panel_row(line: str) -> PanelRow | None:
    """``id|question|category|closes|yes_price``."""
    cells = line.split("|")
    if len(cells) != PANEL_FIELDS:
        return None
    price = _price(cells[4])
    return None if price is None else PanelRow(cells[0], price)


def _section(lines: Sequence[str], start: int) -> list[str]:
    """The lines from ``start`` up to the next blank line."""
    end = start
    while end < len(lines) and lines[end].strip():
        end += 1
    return list(lines[start:end])


def _portfolio(lines: Sequence[str]) -> tuple[dict[str, Decimal], tuple[PositionRow, ...]]:
    at = lines.index(PORTFOLIO)
    numbers = {k: Decimal(v) for k, v in _NUMBERS.findall(lines[at + 1])}
    rows = _section(lines, at + 2)
    found = _POSITIONS.match(rows[0]) if rows else None
    if found is None:
        return numbers, ()
    parsed = (position_row(line) for line in rows[1 : 1 + int(found.group(1))])
    return numbers, tuple(p for p in parsed if p is not None)


def read_prompt(text: str) -> PromptView | None:
    """The decision the prompt asks for, or None when the text is no decision prompt."""
    lines = text.splitlines()
    if not lines or PORTFOLIO not in lines:
        return None
    numbers, positions = _portfolio(lines)
    if "cash" not in numbers or "min_bet" not in numbers:
        return None
    header = next((i for i, line in enumerate(lines) if line.startswith(MARKETS)), None)
    rows = _section(lines, header + 1) if header is not None else []
    parsed = (market_row(line) for line in rows)
    at = next((i for i, line in enumerate(lines) if line.startswith(PANEL)), None)
    panel = (panel_row(line) for line in (_section(lines, at + 1) if at is not None else []))
    date = _DATE.match(lines[0])
    return PromptView(
        header=lines[0],
        moment=date.group(1) if date else lines[0],
        cash=numbers["cash"],
        min_bet=numbers["min_bet"],
        positions=positions,
        markets=tuple(m for m in parsed if m is not None),
        panel=tuple(p for p in panel if p is not None),
    )
