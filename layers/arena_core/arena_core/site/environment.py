"""How every page prints its values: one Jinja2 environment per process, autoescape on for every
template (market questions, model reasoning and raw replies are untrusted and always rendered as
text), every text made inert first, and the filters that format money, probabilities, shares,
times and the file names of pages.
"""

from __future__ import annotations

import functools
import re
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from arena_core.domain.text import inert_text
from arena_core.site.charts import DrawnSeries

HERE = Path(__file__).parent
# File names an index page takes in a folder of pages named by id: a page whose id is one of them
# is named with a ``~`` after it (no id's alphabet holds ``~``), so no id can replace an index.
RESERVED_STEMS = frozenset({"index"})


def page_stem(identifier: str) -> str:
    """The file name (without ``.html``) of the page of a market or model named ``identifier``:
    the id itself, unless an index page takes that name (compared case-blind, as a folder on a
    case-blind disk would)."""
    return f"{identifier}~" if identifier.casefold() in RESERVED_STEMS else identifier


def page_path(folder: str, identifier: str) -> str:
    return f"{folder}/{page_stem(identifier)}.html"


def _fixed(value: Decimal | None, places: str) -> str:
    if value is None:
        return "—"
    rounded = value.quantize(Decimal(places), rounding=ROUND_HALF_EVEN)
    return f"{abs(rounded) if rounded == 0 else rounded:,f}"  # never "-0.00"


def _signed(value: Decimal | None) -> str:
    text = _fixed(value, "0.01")
    return text if value is None or text.startswith("-") else f"+{text}"


def _decimal_places(value: float | None, places: int = 4, *, signed: bool = False) -> str:
    """A computed statistic (a float) at ``places`` decimals, never "-0.000"."""
    if value is None:
        return "—"
    text = f"{value:.{places}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    elif signed and not text.startswith("-"):
        text = f"+{text}"
    return text


def _share(value: Decimal | float | None) -> str:
    """A share as a percentage to one place (a float statistic or an exact Decimal)."""
    if value is None:
        return "—"
    exact = value if isinstance(value, Decimal) else Decimal(repr(value))
    return f"{_fixed(exact * 100, '0.1')}%"


NEEDS = re.compile(
    r"^(\d+) of (\d+) (weeks|events|matured cohorts|matured forecasts|cohorts) needed$"
)
NEEDS_UNITS = {
    "weeks": "wk",
    "events": "events",
    "matured cohorts": "cohorts",
    "matured forecasts": "forecasts",
    "cohorts": "cohorts",
}


def _short_needs(text: str) -> str:
    """What an interval still needs, short enough for a table cell: "3/8 wk"."""
    found = NEEDS.match(text)
    if found is None:
        return text.removesuffix(" needed")
    have, need, unit = found.groups()
    return f"{have}/{need} {NEEDS_UNITS[unit]}"


def _short_name(name: str) -> str:
    """A display name on one line of a table: the row's badge already says "stand-in" or
    "baseline"."""
    return name.removesuffix(" (simulated)").removesuffix(" stand-in").removesuffix(" (baseline)")


def _sort_value(value: Decimal | float | int | None) -> str:
    """A cell's ``data-value`` for sorting: exact, and empty when missing (sorted last)."""
    if value is None:
        return ""
    return format(value, "f") if isinstance(value, Decimal) else repr(value)


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value else "—"


def _inert(value: object) -> object:
    """Every value a template prints: text is made inert (bidi controls and control characters
    shown as markers, lone surrogates replaced) before it is escaped."""
    return inert_text(value) if isinstance(value, str) and not isinstance(value, Markup) else value


@functools.cache
def environment() -> Environment:
    """One environment per process: templates compile once, then every regeneration (each warm
    invocation of the snapshot function) reuses them."""
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_inert,
    )
    env.filters.update(
        money=lambda v: _fixed(v, "0.01"),
        signed=_signed,
        pct=lambda v: "—" if v is None else f"{_fixed(v, '0.01')}%",
        share=_share,
        prob=lambda v: _fixed(v, "0.0001"),
        ratio=lambda v: _fixed(v, "0.01"),
        usd=lambda v: "—" if v is None else f"${_fixed(v, '0.0001')}",
        num=_sort_value,
        places=_decimal_places,
        count=lambda v: "—" if v is None else f"{v:,.0f}",
        short_needs=_short_needs,
        short_name=_short_name,
        when=_when,
        marks=_marks,
        page=page_stem,
    )
    return env


def _marks(series: DrawnSeries) -> Markup:
    """A series' hover marks as SVG, as the chart macro would print them one by one (each
    text made inert, then escaped; the coordinates are numbers): drawn here, a page of charts
    prints a few thousand values fewer through the template."""
    color = escape(_inert(series.color))
    return Markup(
        "".join(
            f'<circle class="mark" cx="{m.x!r}" cy="{m.y!r}" r="3.5" fill="{color}">'
            f"<title>{escape(_inert(m.title))}</title></circle>"
            for m in series.marks
        )
    )
