"""How every page prints its values: one Jinja2 environment per process, autoescape on for every
template (market questions, model reasoning and raw replies are untrusted and always rendered as
text), every text made inert first, and the filters that format money, probabilities, shares,
times and the file names of pages.
"""

from __future__ import annotations

import functools
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from arena_core.domain.text import inert_text
from arena_core.site.charts import DrawnSeries
from arena_core.site.paths import page_stem
from arena_core.site.reasoning import linked

HERE = Path(__file__).parent


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
        short_name=_short_name,
        when=_when,
        marks=_marks,
        page=page_stem,
        linked=linked,
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
