"""Seeds derived from the data, so the same dataset always gives the same intervals."""

from __future__ import annotations

import dataclasses
import hashlib
import sys
from array import array
from collections.abc import Mapping, Sequence, Set
from datetime import date, timedelta
from decimal import Decimal
from itertools import chain
from typing import cast


def seed_for(*parts: object) -> int:
    """A 64-bit seed from the data itself: the same inputs always give the same intervals.

    Mappings and sets are canonicalised by sorted content, so their iteration order does not
    matter; sequences keep their order. Floats are hashed by their exact binary value.
    """
    out: list[bytes] = []
    _encode(parts, out)
    digest = hashlib.sha256(b"".join(out)).digest()
    return int.from_bytes(digest[:8], "big")


def _floats(values: Sequence[float]) -> bytes:
    packed = array("d", values)
    if sys.byteorder == "big":  # one canonical byte order, so seeds match across machines
        packed.byteswap()
    return packed.tobytes()


def _encode_numbers(obj: list[object] | tuple[object, ...], out: list[bytes]) -> bool:
    """Fast paths for what the statistics pass around: lists of floats and of float tuples.

    Returns whether ``obj`` was one of those (and so was encoded)."""
    if not obj:
        return False
    if all(type(v) is float for v in obj):
        out.append(b"F%d:" % len(obj))
        out.append(_floats(cast("list[float]", obj)))
        return True
    first = obj[0]
    width = len(first) if type(first) is tuple else 0
    if width and all(type(t) is tuple and len(t) == width for t in obj):
        flat = list(chain.from_iterable(cast("list[tuple[object, ...]]", obj)))
        if all(type(v) is float for v in flat):
            out.append(b"T%d,%d:" % (len(obj), width))
            out.append(_floats(cast("list[float]", flat)))
            return True
    return False


def _encode(obj: object, out: list[bytes]) -> None:
    """Append an unambiguous encoding of ``obj``: every token carries a type tag and a length."""
    if isinstance(obj, (list, tuple)) and _encode_numbers(obj, out):
        return
    if obj is None or isinstance(obj, (bool, int, float, str, Decimal, date, timedelta)):
        # repr is exact for floats and keeps 1, 1.0, "1" and True apart with the type name.
        text = f"{type(obj).__name__}:{obj!r}".encode()
        out.append(b"s%d:" % len(text))
        out.append(text)
    elif isinstance(obj, (bytes, bytearray)):
        out.append(b"b%d:" % len(obj))
        out.append(bytes(obj))
    elif isinstance(obj, Mapping):
        items = []
        for key, value in obj.items():
            encoded: list[bytes] = []
            _encode(key, encoded)
            items.append((b"".join(encoded), value))
        items.sort(key=lambda item: item[0])
        out.append(b"{%d:" % len(items))
        for encoded_key, value in items:
            out.append(encoded_key)
            _encode(value, out)
    elif isinstance(obj, Set):
        members = []
        for member in obj:
            encoded = []
            _encode(member, encoded)
            members.append(b"".join(encoded))
        out.append(b"<%d:" % len(members))
        out.extend(sorted(members))
    elif isinstance(obj, Sequence):
        out.append(b"[%d:" % len(obj))
        for value in obj:
            _encode(value, out)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        _encode(type(obj).__name__, out)
        _encode({f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}, out)
    else:
        # repr of an arbitrary object may hold a memory address: refuse rather than be random.
        raise TypeError(f"seed_for cannot canonicalise {type(obj).__name__}")
