"""The DynamoDB adapter's hot paths give what the slower definitions give: an item's values read
back as boto3's ``TypeDeserializer`` reads them, a number's size as its Decimal's significant
digits count it, and the significant digits as the leading and trailing zeros leave them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from enum import Enum, IntEnum, StrEnum
from typing import Any

import pytest
from boto3.dynamodb.types import TypeDeserializer
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from arena_core.adapters.dynamodb.codec import deserialized, plain
from arena_core.adapters.dynamodb.limits import number_size, number_text
from arena_core.adapters.dynamodb.schema import stamp
from arena_core.domain.money import significant_digits
from arena_core.errors import StoreLimitError

BOTO3 = TypeDeserializer()


def reference_digits(number: Decimal) -> int:
    """The digits between the first and the last that is not zero (the definition)."""
    digits = [str(d) for d in number.as_tuple().digits]
    text = "".join(digits).strip("0")
    return len(text)


NUMBERS = st.decimals(allow_nan=True, allow_infinity=True) | st.builds(
    Decimal, st.from_regex(r"-?[0-9]{1,30}(\.[0-9]{0,12})?(E[+-]?[0-9]{1,2})?", fullmatch=True)
)


@given(NUMBERS)
def test_significant_digits_are_the_digits_between_the_first_and_last_nonzero(
    number: Decimal,
) -> None:
    assert significant_digits(number) == reference_digits(number)


@pytest.mark.parametrize(
    ("number", "count"),
    [("0", 0), ("0.000", 0), ("-0", 0), ("100", 1), ("0.00012", 2), ("1000.0001", 8), ("NaN", 0)],
)
def test_significant_digits_by_example(number: str, count: int) -> None:
    assert significant_digits(Decimal(number)) == count


TEXTS = st.one_of(
    st.decimals(allow_nan=False, allow_infinity=False, places=6).map(str),
    st.from_regex(r"[+-]?([0-9]{1,20}\.?[0-9]{0,10}|\.[0-9]{1,10})", fullmatch=True),
    st.from_regex(r"-?[0-9]{1,6}(\.[0-9]{1,6})?[eE][+-]?[0-9]{1,2}", fullmatch=True),
)


@given(TEXTS)
def test_a_number_s_size_is_its_decimal_s_significant_digits_counted(text: str) -> None:
    assert number_size(text) == significant_digits(Decimal(text)) // 2 + 2


@given(st.decimals(allow_nan=False, allow_infinity=False, min_value=-(10**20), max_value=10**20))
def test_the_texts_the_codec_writes_are_sized_without_a_decimal(number: Decimal) -> None:
    try:
        text = number_text(number)
    except StoreLimitError:  # outside DynamoDB's digits or range: never written
        return
    assert number_size(text) == significant_digits(Decimal(text)) // 2 + 2


@pytest.mark.parametrize("text", ["", ".", "-", "1..2", "abc", " 1"])
def test_a_text_that_is_no_fixed_point_number_is_left_to_decimal(text: str) -> None:
    try:
        expected: Any = significant_digits(Decimal(text)) // 2 + 2
    except InvalidOperation as error:
        expected = type(error)
    if isinstance(expected, int):
        assert number_size(text) == expected
    else:
        with pytest.raises(expected):
            number_size(text)


SCALARS = st.one_of(
    st.builds(lambda s: {"S": s}, st.text(max_size=8)),
    st.builds(
        lambda n: {"N": str(n)}, st.decimals(allow_nan=False, allow_infinity=False, places=4)
    ),
    st.just({"NULL": True}),
    st.builds(lambda b: {"BOOL": b}, st.booleans()),
    st.builds(lambda b: {"B": b}, st.binary(max_size=4)),
    st.builds(lambda s: {"SS": s}, st.lists(st.text(max_size=3), min_size=1, max_size=3)),
    st.builds(
        lambda n: {"NS": [str(v) for v in n]}, st.lists(st.integers(), min_size=1, max_size=3)
    ),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.builds(lambda v: {"L": v}, st.lists(inner, max_size=4)),
        st.builds(lambda v: {"M": v}, st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    ),
    max_leaves=12,
)


@given(VALUES)
def test_values_read_back_as_boto3_reads_them(value: Any) -> None:
    ours, theirs = deserialized(value), BOTO3.deserialize(value)
    assert ours == theirs
    assert repr(ours) == repr(theirs)  # the same types too (Decimal, Binary, set)


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        {"S": "a", "N": "1"},
        {"X": 1},
        {"s": "lower"},
        {"N": "1." + "1" * 40},
        {"N": "1e200"},
    ],
)
def test_odd_values_are_boto3_s_to_judge(value: Any) -> None:
    try:
        expected: Any = BOTO3.deserialize(value)
    except Exception as error:
        with pytest.raises(type(error)):
            deserialized(value)
    else:
        assert deserialized(value) == expected


class Colour(StrEnum):
    RED = "red"


class Size(IntEnum):
    BIG = 3


def reference_plain(value: Any) -> Any:
    """``plain`` as it was defined, by abstract type tests only."""
    if isinstance(value, BaseModel):
        return reference_plain(value.model_dump(mode="python"))
    if isinstance(value, datetime):
        return stamp(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, Mapping):
        return {str(k): reference_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [reference_plain(v) for v in value]
    return value


LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=4),
    st.decimals(allow_nan=False, allow_infinity=False, places=3),
    st.floats(allow_nan=False, allow_infinity=False),
    st.datetimes(timezones=st.just(UTC)),
    st.sampled_from([Colour.RED, Size.BIG]),
)
PLAIN_VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(PLAIN_VALUES)
def test_plain_values_are_what_the_type_tests_made_them(value: Any) -> None:
    ours, theirs = plain(value), reference_plain(value)
    assert ours == theirs
    assert repr(ours) == repr(theirs)  # an enum's value, not the member; a list, not a tuple
