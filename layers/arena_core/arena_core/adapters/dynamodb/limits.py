"""DynamoDB's own limits, enforced before a request is sent (with a typed error) rather than
discovered from the service, or not at all on an emulator: moto accepts 26-item batches and
39-digit numbers, and applies part of an update whose item ends up too large.

Sizes follow DynamoDB's rules: an attribute counts its name's UTF-8 bytes plus its value's;
strings count their UTF-8 bytes, numbers about one byte per two significant digits plus one,
lists and maps three bytes plus one per element plus their elements.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from arena_core.domain.money import significant_digits
from arena_core.errors import StoreLimitError

MAX_ITEM_BYTES = 400 * 1024
MAX_TRANSACTION_ITEMS = 100
MAX_BATCH_WRITE_ITEMS = 25
MAX_NUMBER_DIGITS = 38
# The magnitudes DynamoDB stores: 1E-130 to 9.9999999999999999999999999999999999999E+125.
SMALLEST_NUMBER = Decimal("1E-130")
LARGEST_NUMBER = Decimal("1E+126")


def number_text(value: Decimal | int) -> str:
    """A number as DynamoDB's ``N`` text: fixed-point (never an exponent form, which moto's
    arithmetic cannot read back), within the digits and the range DynamoDB stores."""
    number = Decimal(value)
    if not number.is_finite():
        raise StoreLimitError(f"{number} is not a finite number")
    if significant_digits(number) > MAX_NUMBER_DIGITS:
        raise StoreLimitError(f"a number with more than {MAX_NUMBER_DIGITS} significant digits")
    if number and not SMALLEST_NUMBER <= abs(number) < LARGEST_NUMBER:
        raise StoreLimitError(f"{number:.3e} is outside the range DynamoDB stores")
    return format(number, "f")


# A number's text in fixed-point form (what ``number_text`` writes): its significant digits
# are its digits, leading and trailing zeros aside, read from the text without a Decimal.
_FIXED_POINT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")


def number_size(text: str) -> int:
    """The size DynamoDB counts for an ``N`` value: about a byte per two significant digits."""
    if isinstance(text, str) and _FIXED_POINT.fullmatch(text):
        significant = len(text.lstrip("+-").replace(".", "").strip("0"))
    else:  # an exponent, or not a number (Decimal decides, and raises as it does)
        significant = significant_digits(Decimal(text))
    return significant // 2 + 2


def value_size(value: Mapping[str, Any]) -> int:
    """The size DynamoDB counts for one attribute value (low-level ``{"S": ...}`` form)."""
    ((kind, body),) = value.items()
    if kind == "S":
        return len(str(body).encode("utf-8"))
    if kind == "N":
        return number_size(body)
    if kind == "B":
        return len(body)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "L":
        return 3 + sum(1 + value_size(v) for v in body)
    if kind == "M":
        return 3 + sum(1 + len(k.encode("utf-8")) + value_size(v) for k, v in body.items())
    return sum(len(str(v).encode("utf-8")) for v in body)  # string, number and binary sets


def item_size(item: Mapping[str, Mapping[str, Any]]) -> int:
    return sum(len(name.encode("utf-8")) + value_size(v) for name, v in item.items())


def check_item(item: Mapping[str, Mapping[str, Any]], what: str) -> None:
    size = item_size(item)
    if size > MAX_ITEM_BYTES:
        raise StoreLimitError(f"{what}: an item of {size} bytes (DynamoDB's limit: 400 KB)")


def check_count(count: int, limit: int, what: str) -> None:
    if count > limit:
        raise StoreLimitError(f"{what}: {count} items in one request (at most {limit})")
