"""Seeded malformed replies, so the demo exercises the format retry and the HOLD fallback.

About 5% of decisions get a malformed first reply, and about 1% stay malformed through every
retry. Whether a decision is one of them is drawn once per decision (not per attempt), so the
two rates nest as stated; the kind of damage is drawn per attempt. Each kind is one real models
produce: prose without the JSON, an object cut off mid-way, Python-style single quotes.
"""

from __future__ import annotations

import random
from collections.abc import Callable

FIRST_RATE = 0.05  # decisions whose first reply is malformed (the persistent ones included)
PERSISTENT_RATE = 0.01  # decisions whose every reply is malformed: the HOLD fallback

PROSE = (
    "Looking over this week's markets, a few sides seem underpriced to me and I would buy "
    "some of them with moderate confidence, while keeping most of the cash in reserve."
)


def is_malformed(key: str, attempt: int) -> bool:
    """Whether reply ``attempt`` (1 = the first) to the decision ``key`` comes out malformed."""
    draw = random.Random(f"{key}:format").random()
    return draw < PERSISTENT_RATE or (attempt == 1 and draw < FIRST_RATE)


def _prose(text: str) -> str:
    del text  # the whole point: the decision never makes it into the reply
    return PROSE


def _cut_off(text: str) -> str:
    """As if the reply ran out of tokens: the object is never closed."""
    return text[: max(len(text) // 2, 1)]


def _single_quotes(text: str) -> str:
    return text.replace('"', "'")


KINDS: tuple[Callable[[str], str], ...] = (_prose, _cut_off, _single_quotes)


def garble(text: str, key: str, attempt: int) -> str:
    """The valid reply ``text`` damaged in one of the ways above, chosen by seed."""
    kind = random.Random(f"{key}:format:{attempt}").choice(KINDS)
    return kind(text)
