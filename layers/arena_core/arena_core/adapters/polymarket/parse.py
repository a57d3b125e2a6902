"""One Gamma ``/markets`` object → the domain ``Market``.

Quirks handled (see shared/reference/upstream-apis.md): ``outcomes``, ``outcomePrices``,
``clobTokenIds`` are JSON strings that need a second parse; numbers arrive as strings or numbers;
prices can be 40-digit decimals; fields go missing (a missing end date stays unknown); modern
markets carry no category.

Status: a market is RESOLVED only when ``closed`` and its UMA status is ``resolved``; prices alone
never settle anything. Closed markets still proposed, disputed or without a UMA status are
CLOSED. Among resolved markets the winner is the one outcome priced 1 (within
``WINNER_TOLERANCE``, because legacy markets settle at 0.99999992…); 0.5 on both sides of a
two-outcome market is a 50/50 split; anything else is INDETERMINATE (refunded at cost).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from pydantic import ValidationError

from arena_core.domain import ids
from arena_core.domain.market import (
    Market,
    MarketStatus,
    OutcomeQuote,
    Resolution,
    ResolutionKind,
)
from arena_core.domain.money import ONE, ZERO, to_decimal
from arena_core.errors import InvalidIdError, MarketPayloadError

WINNER_TOLERANCE = Decimal("0.0001")
HALF = Decimal("0.5")
# A market with more outcomes, a larger volume or a longer id than these is not one to show
# agents; bounding them keeps every later step (prompt, storage) within its limits.
MAX_OUTCOMES = 64
MAX_VOLUME = Decimal("1e15")
MAX_TOKEN_ID = 100  # CLOB token ids are 76-78 digit strings
MAX_TEXT = 2_000  # a question, category, slug (recorded questions are far shorter)
MAX_OUTCOME_NAME = 200  # an outcome name (the longest recorded: 29 characters)


class _Fields:
    """Typed access to one raw payload; every failure names the field."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw
        value = raw.get("id")
        text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else ""
        try:  # the one definition of a market id, matched whole ("1\n" is not "1")
            self.market_id: str | None = ids.market_id(text)
        except InvalidIdError:
            self.market_id = None

    def fail(self, field: str, message: str) -> MarketPayloadError:
        return MarketPayloadError(field, message, market_id=self.market_id)

    def text(self, field: str, *, required: bool = False) -> str | None:
        value = self.raw.get(field)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                raise self.fail(field, "is missing")
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise self.fail(field, f"expected text, got {type(value).__name__}")
        if len(value) > MAX_TEXT:  # every stored market item stays bounded
            raise self.fail(field, f"is longer than {MAX_TEXT} characters")
        return value.strip()

    def flag(self, field: str) -> bool:
        value = self.raw.get(field, False)
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if value is None:
            return False
        raise self.fail(field, f"expected a boolean, got {value!r}")

    def json_list(self, field: str, *, required: bool = False) -> list[Any] | None:
        value = self.raw.get(field)
        if value is None or value == "":
            if required:
                raise self.fail(field, "is missing")
            return None
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except (ValueError, RecursionError) as exc:  # syntax, huge integers, deep nesting
                raise self.fail(field, "is not valid JSON") from exc
        if not isinstance(value, list):
            raise self.fail(field, f"expected a list, got {type(value).__name__}")
        if len(value) > MAX_OUTCOMES:
            raise self.fail(field, f"has {len(value)} entries (at most {MAX_OUTCOMES})")
        return value

    def number(self, *fields: str) -> Decimal | None:
        """The first present field among ``fields`` as a Decimal (numbers or numeric strings)."""
        for field in fields:
            value = self.raw.get(field)
            if value is None or value == "":
                continue
            try:
                return to_decimal(value)
            except ValueError as exc:
                raise self.fail(field, f"is not a number: {value!r}") from exc
        return None

    def moment(self, field: str) -> datetime | None:
        value = self.text(field)
        if value is None:
            return None
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise self.fail(field, f"is not an ISO 8601 time: {value!r}") from exc
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _outcome_names(fields: _Fields) -> list[str]:
    names = fields.json_list("outcomes", required=True) or []
    if len(names) < 2 or not all(isinstance(n, str) and n.strip() for n in names):
        raise fields.fail("outcomes", f"expected two or more names, got {str(names)[:80]}")
    if any(len(n) > MAX_OUTCOME_NAME for n in names):
        raise fields.fail("outcomes", f"a name is longer than {MAX_OUTCOME_NAME} characters")
    return [n.strip() for n in names]


def _prices(fields: _Fields, count: int) -> list[Decimal] | None:
    raw_prices = fields.json_list("outcomePrices")
    if raw_prices is None:
        return None
    if len(raw_prices) != count:
        raise fields.fail("outcomePrices", f"{len(raw_prices)} prices for {count} outcomes")
    prices = []
    for value in raw_prices:
        try:
            price = to_decimal(value)
        except ValueError as exc:
            raise fields.fail("outcomePrices", f"not a number: {str(value)[:40]!r}") from exc
        if not ZERO <= price <= ONE:
            raise fields.fail("outcomePrices", f"price {price} is outside [0, 1]")
        prices.append(price)
    return prices


def _token_ids(fields: _Fields, count: int) -> list[str | None]:
    tokens = fields.json_list("clobTokenIds")
    if not tokens or len(tokens) != count:
        return [None] * count
    return [str(t) if _plain_token(t) else None for t in tokens]


def _plain_token(token: Any) -> bool:
    """A CLOB token id as Gamma writes it: a string (or integer) of digits, bounded."""
    text = str(token) if isinstance(token, (str, int)) and not isinstance(token, bool) else ""
    return text.isascii() and text.isdigit() and len(text) <= MAX_TOKEN_ID


def classify(
    closed: bool, uma_status: str | None, names: list[str], prices: list[Decimal] | None
) -> tuple[MarketStatus, Resolution | None]:
    """Status and resolution from the closed flag, the UMA status and (only then) the prices."""
    if not closed:
        return MarketStatus.OPEN, None
    if (uma_status or "").lower() != "resolved":
        return MarketStatus.CLOSED, None
    if prices is None:
        return MarketStatus.RESOLVED, Resolution(kind=ResolutionKind.INDETERMINATE)
    if len(prices) == 2 and all(p == HALF for p in prices):
        return MarketStatus.RESOLVED, Resolution(kind=ResolutionKind.SPLIT)
    winners = [n for n, p in zip(names, prices, strict=True) if p >= ONE - WINNER_TOLERANCE]
    losers_clean = all(
        p <= WINNER_TOLERANCE for n, p in zip(names, prices, strict=True) if n not in winners
    )
    if len(winners) == 1 and losers_clean:
        return MarketStatus.RESOLVED, Resolution(kind=ResolutionKind.WINNER, winner=winners[0])
    return MarketStatus.RESOLVED, Resolution(kind=ResolutionKind.INDETERMINATE)


def _category(fields: _Fields) -> str | None:
    own = fields.text("category")
    if own:
        return own
    events = fields.raw.get("events")
    if isinstance(events, list) and events and isinstance(events[0], Mapping):
        category = events[0].get("category")
        if isinstance(category, str) and category.strip() and len(category) <= MAX_TEXT:
            return category.strip()
    return None


def _event(fields: _Fields) -> tuple[str | None, str | None]:
    """The market's Polymarket event (``events[0]``): its id (a plain identifier) and slug."""
    events = fields.raw.get("events")
    if not isinstance(events, list) or not events or not isinstance(events[0], Mapping):
        return None, None
    event = _Fields(events[0])
    return event.market_id, event.text("slug")


def parse_market(raw: dict[str, Any]) -> Market:
    """Parse one Gamma market; raise ``MarketPayloadError`` naming the field it cannot use.

    Total: whatever the payload holds, the outcome is a market or that error (the caller skips
    the market and reports why), never another exception.
    """
    if not isinstance(raw, Mapping):
        raise MarketPayloadError("<market>", f"expected an object, got {type(raw).__name__}")
    fields = _Fields(raw)
    try:
        return _parse(fields)
    except MarketPayloadError:
        raise
    except (ValueError, ArithmeticError, RecursionError, TypeError) as exc:
        raise fields.fail("<market>", f"cannot be read: {type(exc).__name__}") from exc


def _parse(fields: _Fields) -> Market:
    if fields.market_id is None:
        raise fields.fail("id", "is missing or not a plain identifier")
    market_id = fields.market_id
    question = fields.text("question", required=True)
    names = _outcome_names(fields)
    prices = _prices(fields, len(names))
    tokens = _token_ids(fields, len(names))
    uma_status = fields.text("umaResolutionStatus")
    status, resolution = classify(fields.flag("closed"), uma_status, names, prices)
    event_id, event_slug = _event(fields)
    if resolution is not None and resolution.winner is not None and _is_yes_no(names):
        resolution = Resolution(kind=resolution.kind, winner=resolution.winner.upper())
    known: list[Decimal | None] = list(prices) if prices is not None else [None] * len(names)
    quotes = tuple(
        OutcomeQuote(name=n, price=p, token_id=t)
        for n, p, t in zip(names, known, tokens, strict=True)
    )
    try:
        return Market(
            market_id=market_id or "",
            question=question or "",
            outcomes=quotes,
            status=status,
            resolution=resolution,
            category=_category(fields),
            volume=_volume(fields),
            liquidity=_liquidity(fields),
            end_date=fields.moment("endDate"),
            slug=fields.text("slug"),
            neg_risk=fields.flag("negRisk"),
            neg_risk_market_id=fields.text("negRiskMarketID"),
            group_item_title=fields.text("groupItemTitle"),
            uma_status=uma_status,
            event_id=event_id,
            event_slug=event_slug,
        )
    except ValidationError as exc:
        raise fields.fail("outcomes", str(exc.errors()[0]["msg"])) from exc


def _volume(fields: _Fields) -> Decimal | None:
    volume = fields.number("volumeNum", "volume")
    if volume is not None and not ZERO <= volume < MAX_VOLUME:
        raise fields.fail("volumeNum", f"{volume:.3e} is not a plausible volume")
    return volume


def _liquidity(fields: _Fields) -> Decimal | None:
    """The order book's liquidity in dollars; an implausible figure is unknown (it only ever
    decides whether a market may join the forecast panel), never a refused market."""
    try:
        liquidity = fields.number("liquidityNum", "liquidity")
    except MarketPayloadError:
        return None
    if liquidity is None or not ZERO <= liquidity < MAX_VOLUME:
        return None
    return liquidity


def _is_yes_no(names: list[str]) -> bool:
    return [n.casefold() for n in names] == ["yes", "no"]
