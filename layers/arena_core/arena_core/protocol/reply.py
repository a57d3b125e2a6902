"""Model reply text → a structurally valid ``Answer``.

Tolerant of what models wrap around the answer: code fences, prose before or after, surrounding
quotes, lowercase actions and keys, numbers written as strings (``"500"``, ``"$1,250"``). Strict
about what matters: exactly one decision (the JSON object that carries ``action``; several that
disagree are an error, not a guess), the fields each action needs, and numbers that are numbers.
Ranges (minimum bet, 25% of cash, percentages) are rules, checked later against the portfolio.

Every failure is a ``DecisionFormatError`` whose message says precisely what is wrong, because
it is fed back to the model for a corrected reply.

Bounded, so that whatever a reply holds, the records made of it fit in one DynamoDB item: at
most ``MAX_INSTRUCTIONS`` bets or sells (more is a format error); ids and sides longer than
their kind allows are cut (``MAX_ID_CHARS``, ``MAX_SIDE_CHARS``, marked with "…", so they match
no market and are rejected as unknown); at most ``MAX_FORECASTS`` forecasts are read and
``MAX_FORECAST_ERRORS`` of their errors kept (with how many more there were).
"""

from __future__ import annotations

import json
import math
import re
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

from arena_core.domain.answer import Action, Answer, BetInstruction, SellInstruction
from arena_core.domain.money import HUNDRED, significant_digits
from arena_core.domain.panel import StatedForecast
from arena_core.domain.panel_design import MAX_PANEL_SIZE
from arena_core.domain.text import clean_text
from arena_core.errors import DecisionFormatError

PROBABILITY_PLACES = Decimal("1e-12")  # every probability of the dataset keeps twelve

MAX_REPLY_CHARS = 200_000
# Numbers the rules can judge without leaving the Decimal context: finite, at most DynamoDB's
# 38 significant digits, below a quadrillion (no bet or percentage comes near it).
MAX_DIGITS = 38
MAX_MAGNITUDE = Decimal("1e15")
_ACTION_KEY = re.compile(r"""(["'])action\1\s*:""", re.IGNORECASE)
_NUMBER = re.compile(r"^\s*\$?\s*([-+]?[0-9][0-9,]*(?:\.[0-9]+)?|[-+]?\.[0-9]+)\s*%?\s*$")


MAX_NESTING = 32  # a decision is three levels deep; deeper is not an answer
MAX_INSTRUCTIONS = 50  # bets or sells in one answer (50 minimum bets: a quarter of the cash)
MAX_ID_CHARS = 128  # a market or position id (``domain.ids``): longer is cut, then unknown
MAX_SIDE_CHARS = 64  # an outcome name (Polymarket's longest recorded: 29 characters)
MAX_FORECASTS = 2 * MAX_PANEL_SIZE  # forecasts read from one reply: twice the largest panel
MAX_FORECAST_ERRORS = 8  # errors of unreadable forecasts kept, then how many more
CUT = "…"
_STRUCTURE = re.compile(r'[{}"\\]')


def _spans(text: str) -> tuple[list[tuple[int, int]], int | None]:
    """The top-level ``{...}`` spans of ``text`` in one pass (braces inside JSON strings do not
    count), and where an object left open at the end begins, if one is.

    One pass over the braces and quotes keeps parsing linear in the reply's length: decoding
    from every ``{`` of a reply full of them would rescan the rest of it each time.
    """
    spans: list[tuple[int, int]] = []
    depth, start, in_string, skip = 0, -1, False, -1
    for match in _STRUCTURE.finditer(text):
        at, char = match.start(), match.group()
        if at == skip:  # the character a backslash escaped
            continue
        if in_string:
            if char == "\\":
                skip = at + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = depth > 0  # quotes outside any object are prose
        elif char == "{":
            start = at if depth == 0 else start
            depth += 1
            if depth > MAX_NESTING:
                raise DecisionFormatError(f"the JSON is nested more than {MAX_NESTING} levels deep")
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append((start, at + 1))
    return spans, (start if depth else None)


def _decoded(span: str) -> Any:
    """The JSON value of a span, or None when it is not valid JSON (a huge integer or an
    unbalanced inside count as invalid, like a syntax error)."""
    try:
        return json.loads(span)
    except (ValueError, RecursionError):
        return None


def _candidates(text: str) -> list[dict[str, Any]]:
    """Every JSON object in the text that carries an ``action`` key, outermost first. An object
    that is not a decision (or not valid JSON) is searched for decisions inside it."""
    found: list[dict[str, Any]] = []
    spans, unclosed = _spans(text)
    for start, end in spans:
        value = _decoded(text[start:end])
        decision = value if isinstance(value, dict) and _has_action(value) else None
        decision = decision or _nested_decision(value)
        if decision is not None:
            found.append(decision)
        else:
            found += _candidates(text[start + 1 : end - 1])
    if unclosed is not None:  # prose with a stray "{" before the answer
        found += _candidates(text[unclosed + 1 :])
    return found


def _has_action(value: dict[str, Any]) -> bool:
    return any(isinstance(key, str) and key.strip().lower() == "action" for key in value)


def _nested_decision(value: Any) -> dict[str, Any] | None:
    """A decision wrapped one level deep, e.g. ``{"decision": {...}}``."""
    if isinstance(value, dict):
        inner = [v for v in value.values() if isinstance(v, dict) and _has_action(v)]
        return inner[0] if len(inner) == 1 else None
    return None


def _unwrap(text: str) -> str:
    """Undo a reply that is itself one JSON string literal (the object quoted as a string)."""
    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] == '"':
        try:
            inner = json.loads(stripped)
        except ValueError:
            return stripped.strip('"')
        if isinstance(inner, str):
            return inner
    return stripped


def _lower_keys(value: dict[str, Any]) -> dict[str, Any]:
    return {str(k).strip().lower(): v for k, v in value.items()}


def _number(value: Any, where: str) -> Decimal:
    return _bounded(_decimal(value, where), where)


def _decimal(value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or value is None:
        raise DecisionFormatError(f"{where} must be a number, got {json.dumps(value)}")
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            raise DecisionFormatError(f"{where} must be a finite number")
        return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if isinstance(value, str):
        match = _NUMBER.match(value)
        if match:
            try:
                return Decimal(match.group(1).replace(",", ""))
            except InvalidOperation:
                pass
    raise DecisionFormatError(f"{where} must be a number, got {json.dumps(value)[:40]}")


def _bounded(number: Decimal, where: str) -> Decimal:
    """A number every later step can compute with exactly, or a format error saying why not."""
    if abs(number) >= MAX_MAGNITUDE:
        raise DecisionFormatError(f"{where} is too large: {number:.3e}")
    if significant_digits(number) > MAX_DIGITS:
        raise DecisionFormatError(f"{where} has more than {MAX_DIGITS} significant digits")
    return number


def _text(value: Any, where: str) -> str:
    if isinstance(value, bool) or value is None:
        raise DecisionFormatError(f"{where} must be a non-empty string")
    if isinstance(value, (int, float)):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        raise DecisionFormatError(f"{where} must be a non-empty string")
    return value.strip()


def _cut(text: str, limit: int) -> str:
    """Model text as stored: at most ``limit`` characters, a cut one marked with "…"."""
    return text if len(text) <= limit else text[:limit] + CUT


def _items(raw: dict[str, Any], name: str) -> list[dict[str, Any]]:
    items = raw.get(name)
    if items is None:
        return []
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        raise DecisionFormatError(f"'{name}' must be a list of objects")
    if len(items) > MAX_INSTRUCTIONS:
        raise DecisionFormatError(
            f"'{name}' has {len(items)} entries; at most {MAX_INSTRUCTIONS} per answer"
        )
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise DecisionFormatError(f"{name}[{index}] must be an object")
    return [_lower_keys(item) for item in items]


def _require(item: dict[str, Any], field: str, where: str) -> Any:
    if field not in item:
        raise DecisionFormatError(f"{where}.{field} is missing")
    return item[field]


def _bets(raw: dict[str, Any]) -> tuple[BetInstruction, ...]:
    bets = []
    for index, item in enumerate(_items(raw, "bets")):
        where = f"bets[{index}]"
        market_id = _text(_require(item, "market_id", where), f"{where}.market_id")
        side = _text(_require(item, "side", where), f"{where}.side")
        bets.append(
            BetInstruction(
                market_id=_cut(market_id, MAX_ID_CHARS),
                side=_cut(side, MAX_SIDE_CHARS),
                amount=_number(_require(item, "amount", where), f"{where}.amount"),
            )
        )
    return tuple(bets)


def _sells(raw: dict[str, Any]) -> tuple[SellInstruction, ...]:
    sells = []
    for index, item in enumerate(_items(raw, "sells")):
        where = f"sells[{index}]"
        position_id = _text(_require(item, "position_id", where), f"{where}.position_id")
        sells.append(
            SellInstruction(
                position_id=_cut(position_id, MAX_ID_CHARS),
                percentage=_number(_require(item, "percentage", where), f"{where}.percentage"),
            )
        )
    return tuple(sells)


def _probability(value: Any, where: str) -> Decimal:
    """A stated probability: a number, or a percent string (``"62%"`` is 0.62), read to the
    twelve decimal places every probability of the dataset keeps."""
    number = _number(value, where)
    if isinstance(value, str) and value.strip().endswith("%"):
        number = number / HUNDRED
    return number.quantize(PROBABILITY_PLACES, rounding=ROUND_HALF_EVEN)


def _forecasts(raw: dict[str, Any]) -> tuple[tuple[StatedForecast, ...], tuple[str, ...]]:
    """The stated forecasts, and what was wrong with the entries that could not be read. A bad
    entry never invalidates the answer: it is fed back, then left missing (v1+panel §2)."""
    items = raw.get("forecasts")
    if items is None:
        return (), ()
    if not isinstance(items, list):
        return (), ("'forecasts' must be a list of objects",)
    found, errors = [], []
    for index, item in enumerate(items[:MAX_FORECASTS]):
        where = f"forecasts[{index}]"
        try:
            if not isinstance(item, dict):
                raise DecisionFormatError(f"{where} must be an object")
            fields = _lower_keys(item)
            market_id = _text(_require(fields, "market_id", where), f"{where}.market_id")
            p_yes = _probability(_require(fields, "p_yes", where), f"{where}.p_yes")
            found.append(StatedForecast(market_id=_cut(market_id, MAX_ID_CHARS), p_yes=p_yes))
        except DecisionFormatError as exc:
            errors.append(str(exc))
    if len(items) > MAX_FORECASTS:
        errors.append(f"'forecasts' has {len(items)} entries; only the first {MAX_FORECASTS} read")
    if len(errors) > MAX_FORECAST_ERRORS:
        more = len(errors) - MAX_FORECAST_ERRORS + 1
        errors = [*errors[: MAX_FORECAST_ERRORS - 1], f"and {more} more unreadable forecasts"]
    return tuple(found), tuple(errors)


def _action(raw: dict[str, Any]) -> Action:
    value = raw.get("action")
    name = value.strip().upper() if isinstance(value, str) else ""
    if name not in Action.__members__:
        raise DecisionFormatError(
            f"'action' must be one of BET, SELL or HOLD, got {json.dumps(value)[:40]}"
        )
    return Action[name]


def _reasoning(raw: dict[str, Any]) -> str:
    value = raw.get("reasoning", "")
    if isinstance(value, str):
        return value.strip()
    return json.dumps(value, ensure_ascii=False)


def _answer(raw: dict[str, Any]) -> Answer:
    fields = _lower_keys(raw)
    action = _action(fields)
    bets, sells = _bets(fields), _sells(fields)
    if action is Action.BET and not bets:
        raise DecisionFormatError("a BET needs a non-empty 'bets' list")
    if action is Action.SELL and not sells:
        raise DecisionFormatError("a SELL needs a non-empty 'sells' list")
    if action is Action.BET and sells:
        raise DecisionFormatError("a BET must not carry 'sells'; send the sells in a SELL")
    if action is Action.SELL and bets:
        raise DecisionFormatError("a SELL must not carry 'bets'; send the bets in a BET")
    if action is Action.HOLD and (bets or sells):
        raise DecisionFormatError("a HOLD carries neither 'bets' nor 'sells'")
    forecasts, errors = _forecasts(fields)
    return Answer(
        action=action,
        bets=bets,
        sells=sells,
        reasoning=_reasoning(fields),
        forecasts=forecasts,
        forecast_errors=errors,
    )


def _why_nothing_found(body: str) -> str:
    if "{" in body and body.count("{") > body.count("}"):
        return "the JSON object is incomplete (unbalanced braces): the reply was cut off"
    key = _ACTION_KEY.search(body)
    if key is not None:
        hint = " (use double quotes, not single quotes)" if key.group(1) == "'" else ""
        return (
            f'the object with "action" is not valid JSON{hint}; check quotes, commas and brackets'
        )
    return 'no JSON object with an "action" field was found; answer with exactly one object'


def parse_answer(text: str) -> Answer:
    """Parse a model reply; raise ``DecisionFormatError`` saying exactly what is wrong."""
    if not isinstance(text, str):
        raise DecisionFormatError(f"the reply must be text, got {type(text).__name__}")
    text = clean_text(text)
    if not text.strip():
        raise DecisionFormatError("the reply is empty; answer with one JSON object")
    if len(text) > MAX_REPLY_CHARS:
        raise DecisionFormatError(f"the reply is longer than {MAX_REPLY_CHARS} characters")
    body = _unwrap(text)
    found = _candidates(body)
    if not found:
        raise DecisionFormatError(_why_nothing_found(body))
    decisions = [_answer(raw) for raw in found]
    if any(d != decisions[0] for d in decisions[1:]):
        raise DecisionFormatError(
            f"found {len(decisions)} different decisions; answer with exactly one JSON object"
        )
    return decisions[0]
