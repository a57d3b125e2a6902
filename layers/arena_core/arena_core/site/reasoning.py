"""A model's reasoning as the site prints it: the markets it names by id (the prompt lists them
by id) shown by their question and linked to their pages.

Only the markets of the decision's cohort are named (those its agents held, traded or were asked
about: each has its page); any other token is printed as written. The text is made inert before
it is escaped, as every other printed value is."""

from __future__ import annotations

import re
from collections.abc import Mapping

from markupsafe import Markup, escape

from arena_core.domain.text import inert_text
from arena_core.site.paths import page_stem

# A market id is letters, digits and '._:-' (``domain/ids.py``); a sentence's full stop or
# colon after one is not part of it.
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")
_TRAILING = ".:-"
_LEEWAY = 5  # a text this much longer than the limit is not cut (as Jinja's ``truncate``)


def _ids(text: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group().rstrip(_TRAILING)) for m in _TOKEN.finditer(text)]


def mentioned(text: str, questions: Mapping[str, str]) -> dict[str, str]:
    """The markets of ``questions`` (id: question) that ``text`` names by id."""
    return {i: questions[i] for _, i in _ids(text) if i in questions}


def shortened(text: str, limit: int) -> str:
    """``text`` cut at the last word boundary before ``limit`` characters, with an ellipsis."""
    if len(text) <= limit + _LEEWAY:
        return text
    cut = text[:limit]
    head = cut.rsplit(" ", 1)[0] if " " in cut else cut
    return f"{head}..."


def linked(text: str, named: Mapping[str, str], root: str, limit: int | None = None) -> Markup:
    """``text`` (cut to ``limit``) escaped, each market of ``named`` it names by id shown by
    its question, linked to its page (``root``: the way up to the site's root)."""
    shown = inert_text(text)
    if limit is not None:
        shown = shortened(shown, limit)
    parts: list[Markup] = []
    last = 0
    for start, market_id in _ids(shown):
        if market_id not in named:
            continue
        parts.append(escape(shown[last:start]))
        parts.append(
            Markup('<a href="{}markets/{}.html" title="market {}">{}</a>').format(
                root, page_stem(market_id), market_id, inert_text(named[market_id])
            )
        )
        last = start + len(market_id)
    parts.append(escape(shown[last:]))
    return Markup("").join(parts)
