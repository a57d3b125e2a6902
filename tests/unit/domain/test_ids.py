"""Issue 26 §1: one definition of every id (``arena_core.domain.ids``), fuzzed where ids enter.

Properties: an id each check accepts is safe in every key, path and commitment (no separator
of the table's keys, no path step, no whitespace or control character, within its length), and
each check accepts exactly what its kind's pattern allows; ``lineup set`` writes a release only
when every id and name passes, and Gamma parsing yields a market only under a plain id.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_core.adapters.polymarket.parse import parse_market
from arena_core.domain import ids
from arena_core.domain.commitment_log import decision_key
from arena_core.errors import ArenaError, InvalidIdError, MarketPayloadError
from arena_core.ports.clock import FixedClock
from arena_core.services.lineup import LineupService
from arena_local.memory import memory_stores

CHECKS = {
    "family": ids.family_id,
    "model": ids.model_id,
    "market": ids.market_id,
    "cohort": ids.cohort_id,
    "agent": ids.agent_id,
    "decision": ids.decision_id,
}
# Near misses: what an operator, an upstream or a forged event actually sends.
PIECES = st.sampled_from(
    ["a", "z", "0", "9", "-", ".", "_", ":", "/", "#", " ", "\n", "\r", "\t", "\x00", "é",
     "A", "w", "c2026-03-01", "claude-opus-4.5", ".w001", "..", "../", "DECISION#", "\u202e"]
)  # fmt: skip
near_misses = st.lists(PIECES, max_size=8).map("".join)
texts = near_misses | st.text(max_size=40)


def key_safe(text: str) -> bool:
    """Nothing in the text could split a table key, climb a path or break a line."""
    return (
        "#" not in text
        and not text.startswith(("/", "."))
        and ".." not in text.split("/")
        and "//" not in text
        and all(c.isascii() and c.isprintable() and not c.isspace() for c in text)
    )


@settings(max_examples=300)
@given(kind=st.sampled_from(sorted(CHECKS)), text=texts)
def test_an_accepted_id_is_safe_in_every_key_and_path(kind: str, text: str) -> None:
    try:
        accepted = CHECKS[kind](text)
    except InvalidIdError:
        return
    assert accepted == text
    assert key_safe(text)
    assert len(text) <= 200
    if kind == "decision":
        assert decision_key(text, "0" * 64).count("/") == 3


@pytest.mark.parametrize(
    ("kind", "good"),
    [
        ("family", "claude-opus-4.5"),
        ("family", "baseline-market-follower"),
        ("model", "anthropic/claude-opus-4.6"),
        ("model", "meta-llama/llama-3.1-8b-instruct:free"),
        ("model", "market-follower"),
        ("market", "516710"),
        ("market", "0x" + "ab" * 32),
        ("cohort", "c2026-03-01"),
        ("agent", "c2026-03-01.claude-opus-4.5"),
        ("decision", "c2026-03-01.claude-opus-4.5.w001"),
    ],
)
def test_the_ids_the_arena_uses_pass(kind: str, good: str) -> None:
    assert CHECKS[kind](good) == good


@pytest.mark.parametrize("kind", sorted(CHECKS))
@pytest.mark.parametrize(
    "bad", ["", " ", "x\n", "\nx", "a b", "a#b", "../x", "x/../y", "é", "x\x00", "-x", ".x"]
)
def test_near_misses_are_refused(kind: str, bad: str) -> None:
    value = {"agent": f"c1.{bad}", "decision": f"c1.{bad}.w001"}.get(kind, bad)
    with pytest.raises(InvalidIdError):
        CHECKS[kind](value)


def test_lengths_are_bounded() -> None:
    with pytest.raises(InvalidIdError):
        ids.family_id("f" * 65)
    with pytest.raises(InvalidIdError):
        ids.model_id("a/" + "b" * 127)
    with pytest.raises(InvalidIdError):
        ids.market_id("1" * 129)
    with pytest.raises(InvalidIdError):
        ids.display_name("D" * 81)
    assert ids.display_name("Ünïcode — fine") == "Ünïcode — fine"


@settings(max_examples=150)
@given(family=texts, model=texts, display=st.none() | texts, provider=st.none() | texts)
def test_lineup_set_writes_a_release_only_under_good_ids(
    family: str, model: str, display: str | None, provider: str | None
) -> None:
    stores = memory_stores()
    service = LineupService(stores.lineups, FixedClock(datetime(2026, 3, 1, tzinfo=UTC)))
    before = service.releases()
    try:
        release = service.set_model(family, model, display_name=display, provider=provider)
    except ArenaError:
        assert service.releases() == before
        return
    spec = release.family(family)
    assert spec is not None
    assert ids.family_id(spec.family_id) and ids.model_id(spec.model_id)
    assert key_safe(spec.family_id) and key_safe(spec.model_id)
    assert "\n" not in spec.display_name and len(spec.display_name) <= ids.DISPLAY_NAME_CHARS


gamma_ids = st.one_of(
    texts,
    st.integers(),
    st.floats(),
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
    st.sampled_from(["1\n", "1 ", " 1", "x" * 128, "x" * 129, "0x12:ab.c-d_e", "1e5"]),
)


@settings(max_examples=200)
@given(market_id=gamma_ids)
def test_gamma_yields_a_market_only_under_a_plain_id(market_id: Any) -> None:
    payload = {
        "id": market_id,
        "question": "Q?",
        "outcomes": '["Yes","No"]',
        "outcomePrices": '["0.5","0.5"]',
    }
    try:
        market = parse_market(payload)
    except MarketPayloadError:
        return
    assert market.market_id == str(market_id)
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}", market.market_id)
