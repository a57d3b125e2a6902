"""Untrusted text made safe to keep, store, encode and show.

Text enters from models (replies, reasoning) and from Polymarket (questions, outcome names).
A lone UTF-16 surrogate (half an emoji, valid in JSON as ``"\\ud83d"``) cannot be encoded as
UTF-8: kept, it makes every later page, export or request that contains it fail. It is replaced
where text enters, once (``clean_text``), by U+FFFD, the replacement character.

Bidirectional overrides and control characters are kept in the data (they are what was sent)
but shown inert on pages (``inert_text``): each becomes a visible ``<U+202E>`` marker, so a
reasoning cannot reorder what a reader sees or hide text.
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


# A str field that is cleaned whenever a model is built (from an upstream, a reply or storage).
CleanText = Annotated[str, AfterValidator(clean_text)]
