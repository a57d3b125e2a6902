"""The leaderboards' statistics that only the scored forecasts determine, carried between
publications with the rest of the carried state (``site/carried.py``).

``arena_core.site.statistics`` computes, for a set of scored forecasts, everything that does not
move with the returns (score intervals, paired Brier comparisons, calibration, breakdowns) and
keeps it in a cache of the process, keyed by a digest of those forecasts. A function that
starts cold (a snapshot tick, every ten minutes, mostly does) finds the cache empty and computes
it all again: half of a tick's statistics, for forecasts that change only when markets settle.
Here the cache's entries are written into the carried state, field by field as JSON, and put
back into the cache when a publication starts; an entry is found only by its digest, so one
computed from other forecasts is never used. What cannot be read back is dropped: the
statistics are then computed, as without it.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from arena_core.site import statistics

TRUSTED = ("arena_core.site.", "arena_core.scoring.")  # the only classes rebuilt from the file


def export_statistics() -> dict[str, Any]:
    """The process's cached forecast statistics, as JSON-able values by digest."""
    cache: Mapping[str, object] = getattr(statistics, "_CACHE", {})
    return {key: _encode(part) for key, part in cache.items()}


def restore_statistics(entries: Mapping[str, Any]) -> int:
    """Put carried entries back into the statistics cache (those it lacks); how many."""
    cache = getattr(statistics, "_CACHE", None)
    if cache is None:
        return 0
    restored = 0
    for key, raw in entries.items():
        if key in cache:
            continue
        try:
            cache[key] = _decode(raw)
        except (KeyError, TypeError, ValueError, AttributeError, ImportError):
            continue  # written by another version: computed afresh
        restored += 1
    return restored


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value)
        fields = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"@": f"{kind.__module__}:{kind.__qualname__}", **fields}
    if isinstance(value, tuple):
        return {"@tuple": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, Mapping):
        return {"@map": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, Decimal):
        return {"@decimal": str(value)}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"cannot carry a {type(value).__name__}")


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "@tuple" in value:
        return tuple(_decode(v) for v in value["@tuple"])
    if "@map" in value:
        return {_decode(k): _decode(v) for k, v in value["@map"]}
    if "@decimal" in value:
        return Decimal(value["@decimal"])
    module, _, name = str(value["@"]).partition(":")
    if not module.startswith(TRUSTED):
        raise ValueError(f"not a statistics class: {module}")
    kind = importlib.import_module(module)
    for part in name.split("."):
        kind = getattr(kind, part)
    if not (isinstance(kind, type) and dataclasses.is_dataclass(kind)):
        raise TypeError(f"{name} is not a dataclass")
    return kind(**{k: _decode(v) for k, v in value.items() if k != "@"})
