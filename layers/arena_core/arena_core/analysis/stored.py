"""A board's statistics as JSON and back, exactly.

What the forecasts alone decide (``board.analyze_forecasts``) changes a few times a day, while
the leaderboard is regenerated every ten minutes: the site keeps it between publications
(``site/boards.py``). Read back it must be the board computed afresh, to the bit: floats are
written as Python writes them (the shortest text that reads back to the same double, infinities
included), tuples, mappings, enums and nested dataclasses are rebuilt from the dataclasses'
own annotations, and a measure is stored by its name.

A stored board is tied to the code that computed it (``arena_core.code``): its key holds the
package's digest, so other code never reads it.
"""

from __future__ import annotations

import functools
import json
import math
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, is_dataclass
from enum import Enum
from functools import cache
from typing import Any, Union, get_args, get_origin, get_type_hints

from arena_core.analysis import figures
from arena_core.analysis.board import Board
from arena_core.analysis.figures import Measure
from arena_core.errors import DatasetError

MEASURES = {m.name: m for m in vars(figures).values() if isinstance(m, Measure)}


def dump_board(board: Board) -> str:
    return dump_value(board)


def dump_value(value: Any) -> str:
    """Any value of the analysis's types (dataclasses of them included) as JSON."""
    return json.dumps(_plain(value), separators=(",", ":"))


def load_value(kind: Any, text: str) -> Any:
    """A value of type ``kind`` as ``dump_value`` wrote it."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise DatasetError(f"a stored value cannot be read: {type(exc).__name__}") from exc
    return from_plain(kind, data)


def plain(value: Any) -> Any:
    """``dump_value``'s JSON before it is written: to nest in other JSON (not as a text in it,
    escaped, to be parsed twice)."""
    return _plain(value)


def from_plain(kind: Any, data: Any) -> Any:
    """A value of type ``kind`` from ``plain``'s JSON, parsed."""
    try:
        return _typed(kind, data)
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        raise DatasetError(f"a stored value cannot be read: {type(exc).__name__}") from exc


def load_board(text: str) -> Board:
    return _board(load_value(Board, text))


def board_from_plain(data: Any) -> Board:
    """A board from ``plain``'s JSON, parsed (a board nested in other JSON)."""
    return _board(from_plain(Board, data))


def _board(found: Any) -> Board:
    if not isinstance(found, Board):
        raise DatasetError("a stored board is not a board")
    return found


@cache
def _fields_of(kind: type) -> tuple[tuple[str, Any], ...]:
    """A dataclass's fields and their annotations, resolved once."""
    hints = get_type_hints(kind)
    return tuple((f.name, hints[f.name]) for f in fields(kind))


def _plain(value: Any) -> Any:
    if isinstance(value, Measure):
        return value.name
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": repr(value)}  # JSON has no infinity: kept as Python's text
    return value


def _typed(kind: Any, data: Any) -> Any:
    return _reader(kind)(data)


@cache
def _reader(kind: Any) -> Callable[[Any], Any]:
    """How a value of ``kind`` is read back: worked out once per type from its annotations,
    so reading a board is a walk over its values, not over its types again at each."""
    origin, args = get_origin(kind), get_args(kind)
    if origin in (Union, types.UnionType):
        return _union(args)
    if kind is Measure:
        return MEASURES.__getitem__
    if isinstance(kind, type) and is_dataclass(kind):
        return _dataclass(kind)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind
    if origin is tuple:
        return _tuple(args)
    if origin in (list, Sequence):
        item = _reader(args[0])
        return lambda data: [item(v) for v in data]
    if origin in (dict, Mapping):
        value = _reader(args[1])
        return lambda data: {str(k): value(v) for k, v in data.items()}
    if kind is float:
        return _float
    if kind in (int, str, bool):
        return functools.partial(_exactly, kind)
    raise TypeError(f"cannot read {kind!r}")


def _float(data: Any) -> float:
    if type(data) is float:  # as JSON reads most of them: nothing to convert
        return data
    return float(data["float"]) if isinstance(data, dict) else float(data)


def _union(args: tuple[Any, ...]) -> Callable[[Any], Any]:
    (inner,) = [a for a in args if a is not type(None)]
    read, optional = _reader(inner), type(None) in args
    return lambda data: None if data is None and optional else read(data)


def _dataclass(kind: type) -> Callable[[Any], Any]:
    readers = [(name, _reader(hint)) for name, hint in _fields_of(kind)]
    return lambda data: kind(**{name: read(data[name]) for name, read in readers})


def _tuple(args: tuple[Any, ...]) -> Callable[[Any], Any]:
    if len(args) == 2 and args[1] is Ellipsis:
        item = _reader(args[0])
        return lambda data: tuple(item(v) for v in data)
    readers = [_reader(a) for a in args]
    return lambda data: tuple(read(v) for read, v in zip(readers, data, strict=True))


def _exactly(kind: type, data: Any) -> Any:
    if not isinstance(data, kind):
        raise TypeError(f"{kind.__name__} expected")
    return data
