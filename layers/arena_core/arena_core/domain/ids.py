"""One definition of every id: its alphabet and its length, checked where the id enters.

Ids become DynamoDB keys, S3 keys, site paths, commitment keys and prompt rows. Each kind has
one pattern here, matched against the whole text (``fullmatch``: a ``$`` would also match
before a final newline, so ``"1\\n"`` would pass), and one length. Models, events, commands and
parsers all check through these, so every later step (a key, a path, a commitment) can rely on
an id without checking it again:

- family id: lowercase letters, digits, ``.``, ``_``, ``-``; starts with a letter or digit; at
  most 64 characters (``claude-opus-4.5``). Lowercase only: it names the family's pages, and
  two families differing by case would share a path on a case-insensitive file system.
- model id: OpenRouter's ``provider/name[:variant]``: segments of letters, digits and
  ``. _ : @ + -`` separated by ``/``, each starting with a letter or digit; at most 128.
- market id: letters, digits and ``. _ : -``, starting with a letter or digit; at most 128
  (Gamma's numeric ids, condition ids).
- cohort id: letters, digits and ``-``, starting with a letter or digit; at most 32 (no dot:
  an agent id is split at its first dot).
- agent id: ``<cohort id>.<family id>``; decision id: ``<agent id>.w<week>`` (three to six
  digits).

Display names and provider names are bounded text without control characters.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated

from pydantic import AfterValidator

from arena_core.errors import InvalidIdError

_FAMILY = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
_SEGMENT = r"[A-Za-z0-9][A-Za-z0-9._:@+-]*"
_MODEL = re.compile(rf"{_SEGMENT}(?:/{_SEGMENT})*")
_MARKET = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
_COHORT = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,31}")
_WEEK = re.compile(r"w[0-9]{3,6}")
MODEL_ID_CHARS = 128
DISPLAY_NAME_CHARS = 80
PROVIDER_CHARS = 40
SHOWN = 40  # characters of a refused id quoted in the error


def _shown(text: object) -> str:
    value = str(text)
    return repr(value if len(value) <= SHOWN else value[:SHOWN] + "…")


def _check(pattern: re.Pattern[str], kind: str, text: object) -> str:
    if not isinstance(text, str) or pattern.fullmatch(text) is None:
        raise InvalidIdError(f"not a {kind}: {_shown(text)}")
    return text


def family_id(text: object) -> str:
    return _check(_FAMILY, "family id (a-z, 0-9, '.', '_', '-'; at most 64)", text)


def model_id(text: object) -> str:
    checked = _check(_MODEL, "model id (provider/name: letters, digits, '._:@+-')", text)
    if len(checked) > MODEL_ID_CHARS:
        raise InvalidIdError(f"a model id has at most {MODEL_ID_CHARS} characters")
    return checked


def market_id(text: object) -> str:
    return _check(_MARKET, "market id (letters, digits, '._:-'; at most 128)", text)


def cohort_id(text: object) -> str:
    return _check(_COHORT, "cohort id (letters, digits, '-'; at most 32)", text)


def agent_id(text: object) -> str:
    """``<cohort id>.<family id>``."""
    if not isinstance(text, str) or "." not in text:
        raise InvalidIdError(f"not an agent id (<cohort>.<family>): {_shown(text)}")
    cohort, family = text.split(".", 1)
    try:
        cohort_id(cohort)
        family_id(family)
    except InvalidIdError as exc:
        raise InvalidIdError(f"not an agent id: {_shown(text)}: {exc}") from exc
    return text


def decision_id(text: object) -> str:
    """``<agent id>.w<week>``."""
    if not isinstance(text, str) or ".w" not in text:
        raise InvalidIdError(f"not a decision id (<agent>.w<week>): {_shown(text)}")
    agent, week = text.rsplit(".", 1)
    if _WEEK.fullmatch(week) is None:
        raise InvalidIdError(f"not a decision id (<agent>.w<week>): {_shown(text)}")
    try:
        agent_id(agent)
    except InvalidIdError as exc:
        raise InvalidIdError(f"not a decision id: {_shown(text)}: {exc}") from exc
    return text


def _bounded_name(text: object, kind: str, limit: int) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InvalidIdError(f"a {kind} must be non-empty text")
    if len(text) > limit:
        raise InvalidIdError(f"a {kind} has at most {limit} characters, got {len(text)}")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") for c in text):
        raise InvalidIdError(f"a {kind} holds no control or format character: {_shown(text)}")
    return text


def display_name(text: object) -> str:
    return _bounded_name(text, "display name", DISPLAY_NAME_CHARS)


def provider_name(text: object) -> str:
    return _bounded_name(text, "provider name", PROVIDER_CHARS)


FamilyId = Annotated[str, AfterValidator(family_id)]
ModelId = Annotated[str, AfterValidator(model_id)]
MarketId = Annotated[str, AfterValidator(market_id)]
CohortId = Annotated[str, AfterValidator(cohort_id)]
AgentId = Annotated[str, AfterValidator(agent_id)]
DecisionId = Annotated[str, AfterValidator(decision_id)]
DisplayName = Annotated[str, AfterValidator(display_name)]
ProviderName = Annotated[str, AfterValidator(provider_name)]
