"""Untrusted text made safe to keep, store, encode and show.

Text enters from models (replies, reasoning) and from Polymarket (questions, outcome names).
A lone UTF-16 surrogate (half an emoji, valid in JSON as ``"\\ud83d"``) cannot be encoded as
UTF-8: kept, it makes every later page, export or request that contains it fail. It is replaced
where text enters, once (``clean_text``), by U+FFFD, the replacement character.

Bidirectional overrides and control characters are kept in the data (they are what was sent)
but shown inert on pages (``inert_text``): each becomes a visible ``<U+202E>`` marker, so a
reasoning cannot reorder what a reader sees or hide text. Printed to a terminal
(``terminal_text``), line breaks and tabs become markers too and the text is bounded.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")
# Bidi embeddings/overrides (U+202A–U+202E) and isolates (U+2066–U+2069); C0 controls other than
# tab, newline and carriage return; DEL and the C1 controls.
_INERT = re.compile("[\u202a-\u202e\u2066-\u2069\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD: always encodable as UTF-8."""
    return _SURROGATE.sub(REPLACEMENT, text)


def inert_text(text: str) -> str:
    """``text`` for display: clean, with bidi controls and control characters made visible."""
    return _INERT.sub(lambda m: f"<U+{ord(m.group()):04X}>", clean_text(text))


def terminal_text(text: str, limit: int = 200) -> str:
    """``text`` for one line of a terminal: inert (``inert_text``), with tabs and line breaks
    made visible too, and at most ``limit`` characters. Stored text printed by a command can
    neither run an escape sequence nor forge a line of the output."""
    shown = inert_text(text).replace("\t", "<U+0009>").replace("\r", "<U+000D>")
    shown = shown.replace("\n", "<U+000A>")
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


# A str field that is cleaned whenever a model is built (from an upstream, a reply or storage).
CleanText = Annotated[str, AfterValidator(clean_text)]
