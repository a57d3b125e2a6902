"""A corpus of real-looking model replies and what the parser must make of each."""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena_core.domain.answer import Action, Answer
from arena_core.errors import ArenaError, DecisionFormatError
from arena_core.protocol import parse_answer

HOLD = '{"action": "HOLD", "reasoning": "Nothing is mispriced."}'
BET = '{"action": "BET", "bets": [{"market_id": "123", "side": "YES", "amount": 500}], "reasoning": "Underpriced."}'
SELL = '{"action": "SELL", "sells": [{"position_id": "p1", "percentage": 50}], "reasoning": "Take profit."}'

# (reply, expected action, expected (market_id|position_id, side, amount|percentage) per item)
VALID = [
    (HOLD, Action.HOLD, []),
    (BET, Action.BET, [("123", "YES", "500")]),
    (SELL, Action.SELL, [("p1", None, "50")]),
    (f"```json\n{BET}\n```", Action.BET, [("123", "YES", "500")]),
    (f"```\n{HOLD}\n```", Action.HOLD, []),
    (f"Here is my decision:\n{BET}\nGood luck!", Action.BET, [("123", "YES", "500")]),
    (f"After careful thought, I will hold.\n\n{HOLD}", Action.HOLD, []),
    (f'"{HOLD}"', Action.HOLD, []),
    ('"{\\"action\\": \\"HOLD\\", \\"reasoning\\": \\"quoted\\"}"', Action.HOLD, []),
    (f"'{HOLD}'", Action.HOLD, []),
    ('{"action": "hold", "reasoning": "lowercase"}', Action.HOLD, []),
    (
        '{"Action": "Bet", "Bets": [{"Market_ID": "9", "Side": "no", "Amount": "250.50"}]}',
        Action.BET,
        [("9", "no", "250.50")],
    ),
    (
        '{"action": "BET", "bets": [{"market_id": 77, "side": "YES", "amount": "$1,250"}], "reasoning": "x"}',
        Action.BET,
        [("77", "YES", "1250")],
    ),
    (
        '{"action": "BET", "bets": [{"market_id": "5", "side": "Lakers", "amount": 60}], "reasoning": "named"}',
        Action.BET,
        [("5", "Lakers", "60")],
    ),
    (
        '{"action": "BET", "bets": [{"market_id": "1", "side": "YES", "amount": -100}], "reasoning": "negative"}',
        Action.BET,
        [("1", "YES", "-100")],
    ),
    (
        '{"action": "BET", "bets": [{"market_id": "1", "side": "YES", "amount": 1e9}], "reasoning": "huge"}',
        Action.BET,
        [("1", "YES", "1000000000.0")],
    ),
    (
        '{"action": "SELL", "sells": [{"position_id": "p1", "percentage": 150}], "reasoning": "too much"}',
        Action.SELL,
        [("p1", None, "150")],
    ),
    (
        '{"action": "SELL", "sells": [{"position_id": "p1", "percentage": "25%"}]}',
        Action.SELL,
        [("p1", None, "25")],
    ),
    (
        '{"action": "BET", "bets": [{"market_id": "zzz-unknown", "side": "YES", "amount": 100}]}',
        Action.BET,
        [("zzz-unknown", "YES", "100")],
    ),
    (
        '{"action": "SELL", "sells": [{"position_id": "not-mine", "percentage": 100}]}',
        Action.SELL,
        [("not-mine", None, "100")],
    ),
    (
        '{"action": "HOLD", "reasoning": "extra", "confidence": 0.7, "notes": ["a"]}',
        Action.HOLD,
        [],
    ),
    (
        '{"action": "BET", "bets": [{"market_id": "1", "side": "YES", "amount": 100, "probability": 0.6}]}',
        Action.BET,
        [("1", "YES", "100")],
    ),
    ('{"decision": {"action": "HOLD", "reasoning": "wrapped"}}', Action.HOLD, []),
    (
        '{"action": "BET", "bets": {"market_id": "1", "side": "YES", "amount": 100}}',
        Action.BET,
        [("1", "YES", "100")],
    ),
    ('{"action": "HOLD", "bets": [], "reasoning": "empty list is absent"}', Action.HOLD, []),
    (f"{HOLD}\n{HOLD}", Action.HOLD, []),  # the same decision twice is one decision
    (
        '{"action": " BET ", "bets": [{"market_id": " 1 ", "side": " yes ", "amount": 75}]}',
        Action.BET,
        [("1", "yes", "75")],
    ),
    (
        '<think>{"draft": true}</think>\n{"action": "HOLD", "reasoning": "after thinking"}',
        Action.HOLD,
        [],
    ),
    ('{"action": "HOLD", "reasoning": {"summary": "structured reasoning"}}', Action.HOLD, []),
    (
        '{"action":"BET","bets":[{"market_id":"1","side":"YES","amount":50},{"market_id":"2","side":"NO","amount":75.25}],"reasoning":"two"}',
        Action.BET,
        [("1", "YES", "50"), ("2", "NO", "75.25")],
    ),
]

INVALID = [
    ("", "empty"),
    ("   \n ", "empty"),
    ("I would rather not trade this week.", "no JSON object"),
    ('{"reasoning": "forgot the action"}', "no JSON object"),
    ('{"action": "BUY", "bets": []}', "must be one of BET, SELL or HOLD"),
    ('{"action": 3}', "must be one of BET, SELL or HOLD"),
    ('{"action": "BET", "bets": [], "reasoning": "nothing"}', "non-empty 'bets'"),
    ('{"action": "BET", "reasoning": "no bets key"}', "non-empty 'bets'"),
    ('{"action": "SELL", "sells": []}', "non-empty 'sells'"),
    (
        '{"action": "HOLD", "bets": [{"market_id": "1", "side": "YES", "amount": 100}]}',
        "HOLD carries neither",
    ),
    ('{"action": "BET", "bets": [{"market_id": "1", "side": "YES"}]}', "bets[0].amount is missing"),
    ('{"action": "BET", "bets": [{"side": "YES", "amount": 10}]}', "bets[0].market_id is missing"),
    ('{"action": "BET", "bets": [{"market_id": "1", "amount": 10}]}', "bets[0].side is missing"),
    (
        '{"action": "BET", "bets": [{"market_id": "1", "side": "YES", "amount": "lots"}]}',
        "bets[0].amount must be a number",
    ),
    (
        '{"action": "BET", "bets": [{"market_id": "1", "side": "YES", "amount": true}]}',
        "bets[0].amount must be a number",
    ),
    (
        '{"action": "BET", "bets": [{"market_id": "1", "side": "", "amount": 10}]}',
        "bets[0].side must be a non-empty string",
    ),
    ('{"action": "BET", "bets": ["market 1 YES 100"]}', "bets[0] must be an object"),
    ('{"action": "BET", "bets": "market 1"}', "'bets' must be a list"),
    ('{"action": "SELL", "sells": [{"position_id": "p1"}]}', "sells[0].percentage is missing"),
    ('{"action": "SELL", "sells": [{"percentage": 50}]}', "sells[0].position_id is missing"),
    (
        '{"action": "BET", "bets": [{"market_id": "1", "side": "YES", "amount": 100}], "sells": [{"position_id": "p", "percentage": 5}]}',
        "must not carry 'sells'",
    ),
    ('{"action": "BET", "bets": [{"market_id": "1", "side": "YES", "amount": 100}', "cut off"),
    ('{"action": "HOLD", "reasoning": "I think the market is', "cut off"),
    ("{'action': 'HOLD', 'reasoning': 'python dict'}", "double quotes"),
    ('{"action": "HOLD",, "reasoning": "trailing"}', "not valid JSON"),
    (f"{HOLD}\n{BET}", "2 different decisions"),
    (
        '{"action": "BET", "bets": [{"market_id": "1", "side": "YES", "amount": NaN}]}',
        "must be a finite number",
    ),
    (
        '{"action": "BET", "bets": [{"market_id": null, "side": "YES", "amount": 1}]}',
        "market_id must be a non-empty string",
    ),
]


@pytest.mark.parametrize(("reply", "action", "items"), VALID)
def test_valid_replies(
    reply: str, action: Action, items: list[tuple[str, str | None, str]]
) -> None:
    decision = parse_answer(reply)
    assert decision.action is action
    got: list[tuple[str, str | None, Decimal]]
    if action is Action.BET:
        got = [(b.market_id, b.side, b.amount) for b in decision.bets]
    else:
        got = [(s.position_id, None, s.percentage) for s in decision.sells]
    assert got == [(i, s, Decimal(n)) for i, s, n in items]


@pytest.mark.parametrize(("reply", "message"), INVALID)
def test_unusable_replies_say_precisely_what_is_wrong(reply: str, message: str) -> None:
    with pytest.raises(DecisionFormatError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_answer(reply)


def test_corpus_is_large_enough() -> None:
    assert len(VALID) + len(INVALID) >= 40


def test_reasoning_is_kept() -> None:
    assert parse_answer(BET).reasoning == "Underpriced."
    assert parse_answer('{"action": "HOLD"}').reasoning == ""


def test_huge_replies_are_refused() -> None:
    with pytest.raises(DecisionFormatError, match="longer than"):
        parse_answer(HOLD + " " * 300_000)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=400) | st.from_regex(r"\{.{0,80}\}", fullmatch=True))
def test_arbitrary_text_never_raises_anything_but_the_typed_error(text: str) -> None:
    try:
        decision = parse_answer(text)
    except DecisionFormatError as exc:
        assert str(exc)
        assert isinstance(exc, ArenaError)
    else:
        assert isinstance(decision, Answer)


json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "action",
                    "bets",
                    "sells",
                    "market_id",
                    "side",
                    "amount",
                    "position_id",
                    "percentage",
                    "reasoning",
                    "x",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=500, deadline=None)
@given(json_like)
def test_arbitrary_json_structures_never_raise_anything_but_the_typed_error(value: object) -> None:
    import json  # noqa: PLC0415

    try:
        decision = parse_answer(json.dumps(value))
    except DecisionFormatError as exc:
        assert str(exc)
    else:
        assert decision.action in Action
