"""Model reply text → a structurally valid ``Answer``.

Tolerant of what models wrap around the answer: code fences, prose before or after, surrounding
quotes, lowercase actions and keys, numbers written as strings (``"500"``, ``"$1,250"``). Strict
about what matters: exactly one decision (the JSON object that carries ``action``; several that
disagree are an error, not a guess), the fields each action needs, and numbers that are numbers.
Ranges (minimum bet, 25% of cash, percentages) are rules, checked later against the portfolio.

Every failure is a ``DecisionFormatError`` whose message says precisely what is wrong, because
it is fed back to the model for a corrected reply.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from arena_core.domain.answer import Action, Answer, BetInstruction, SellInstruction
from arena_core.errors import DecisionFormatError

MAX_REPLY_CHARS = 200_000
_ACTION_KEY = re.compile(r"""(["'])action\1\s*:""", re.IGNORECASE)
_NUMBER = re.compile(r"^\s*\$?\s*([-+]?[0-9][0-9,]*(?:\.[0-9]+)?|[-+]?\.[0-9]+)\s*%?\s*$")


def _candidates(text: str) -> list[dict[str, Any]]:
    """Every JSON object in the text that carries an ``action`` key, outermost first."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    position = text.find("{")
    while position != -1:
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            position = text.find("{", position + 1)
            continue
        if isinstance(value, dict) and _has_action(value):
            found.append(value)
            position = text.find("{", end)
        else:
            nested = _nested_decision(value)
            if nested is not None:
                found.append(nested)
                position = text.find("{", end)
            else:
                position = text.find("{", position + 1)
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
        except json.JSONDecodeError:
            return stripped.strip('"')
        if isinstance(inner, str):
            return inner
    return stripped


def _lower_keys(value: dict[str, Any]) -> dict[str, Any]:
    return {str(k).strip().lower(): v for k, v in value.items()}


def _number(value: Any, where: str) -> Decimal:
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


def _text(value: Any, where: str) -> str:
    if isinstance(value, bool) or value is None:
        raise DecisionFormatError(f"{where} must be a non-empty string")
    if isinstance(value, (int, float)):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        raise DecisionFormatError(f"{where} must be a non-empty string")
    return value.strip()


def _items(raw: dict[str, Any], name: str) -> list[dict[str, Any]]:
    items = raw.get(name)
    if items is None:
        return []
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        raise DecisionFormatError(f"'{name}' must be a list of objects")
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
        bets.append(
            BetInstruction(
                market_id=_text(_require(item, "market_id", where), f"{where}.market_id"),
                side=_text(_require(item, "side", where), f"{where}.side"),
                amount=_number(_require(item, "amount", where), f"{where}.amount"),
            )
        )
    return tuple(bets)


def _sells(raw: dict[str, Any]) -> tuple[SellInstruction, ...]:
    sells = []
    for index, item in enumerate(_items(raw, "sells")):
        where = f"sells[{index}]"
        sells.append(
            SellInstruction(
                position_id=_text(_require(item, "position_id", where), f"{where}.position_id"),
                percentage=_number(_require(item, "percentage", where), f"{where}.percentage"),
            )
        )
    return tuple(sells)


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
    return Answer(action=action, bets=bets, sells=sells, reasoning=_reasoning(fields))


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
