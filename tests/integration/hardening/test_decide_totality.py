"""Defect 3: only upstream errors were recorded as failed attempts; the parser let recursion
and integer-size errors escape and rescanned failed decodes; the OpenRouter client let a list
as content or a garbled usage through. Every exception after the claim is now a recorded attempt
that counts toward the limit and ends as a retry or exhausted."""

from __future__ import annotations

import json
from contextlib import suppress
from typing import Any

import httpx
import pytest

from arena_core.domain.decisions import DecisionStatus
from arena_core.errors import DecideAttemptError, DecisionFormatError, RetryableUpstreamError
from arena_core.protocol import parse_answer, reply
from tests.integration.decide.conftest import World
from tests.integration.upstream.test_openrouter_client import REQUEST, client
from tests.support.agents import ScriptedAgent

BET = json.dumps(
    {
        "action": "BET",
        "bets": [
            {"market_id": "m1", "side": "YES", "amount": 500},
            {"market_id": "m2", "side": "NO", "amount": 400},
        ],
        "reasoning": "two bets",
    }
)


class FailingRole:
    """A store role whose ``method`` raises an unexplained error the first ``times`` calls."""

    def __init__(self, inner: object, method: str, times: int) -> None:
        self._inner, self._method, self.left = inner, method, times

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if name != self._method:
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.left > 0:
                self.left -= 1
                raise RuntimeError("a library surprise")
            return attribute(*args, **kwargs)

        return call


def failing(world: World, method: str, times: int) -> Any:
    from dataclasses import replace  # noqa: PLC0415

    role: Any = FailingRole(world.stores.ledger, method, times)
    return replace(world.stores, ledger=role)


def test_an_unexplained_error_after_the_checkpoint_is_a_recorded_retryable_attempt(
    world: World,
) -> None:
    agent = ScriptedAgent(BET)
    stores = failing(world, "apply_trade", 1)
    with pytest.raises(DecideAttemptError, match="RuntimeError"):
        world.service(stores).decide(world.request(owner="run-1"), agent)
    (record,) = world.stores.decisions.decisions(world.agents[0].agent_id)
    assert record.status is DecisionStatus.RETRYABLE_FAILURE
    assert record.attempts == 1
    assert (record.error or "").startswith("RuntimeError: a library surprise")
    assert record.checkpoint is not None  # trades of this answer may be applied: kept
    result = world.service().decide(world.request(owner="run-2"), agent)
    assert agent.calls == 1  # the retry finished the stored answer, never asked again
    assert (result.status, result.executed) == (DecisionStatus.SUCCEEDED, 2)
    assert len(world.stores.ledger.trades(world.agents[0].agent_id)) == 2


def test_an_error_that_never_goes_away_ends_exhausted(world: World) -> None:
    stores = failing(world, "apply_trade", 99)
    for attempt in range(3):
        with pytest.raises(DecideAttemptError):
            world.service(stores).decide(world.request(owner=f"r{attempt}"), ScriptedAgent(BET))
    result = world.service(stores).decide(world.request(owner="r9"), ScriptedAgent(BET))
    assert result.status is DecisionStatus.EXHAUSTED
    (record,) = world.stores.decisions.decisions(world.agents[0].agent_id)
    # The third failure was the last attempt: recorded exhausted, final (issue 26), so nothing
    # downstream waits for a decision no run will retry.
    assert (record.status, record.attempts, record.owner) == (
        DecisionStatus.EXHAUSTED,
        3,
        "r2",
    )


def test_an_error_before_the_checkpoint_asks_again_next_time(world: World) -> None:
    stores = failing(world, "positions", 1)
    first = ScriptedAgent(BET)
    with pytest.raises(DecideAttemptError):
        world.service(stores).decide(world.request(owner="run-1"), first)
    (record,) = world.stores.decisions.decisions(world.agents[0].agent_id)
    assert record.checkpoint is None
    second = ScriptedAgent(BET)
    assert world.service().decide(world.request(owner="run-2"), second).executed == 2
    assert second.calls == 1


@pytest.mark.parametrize(
    "text",
    [
        '{"action": "HOLD", "reasoning": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"action": "BET", "bets": [{"market_id": "m1", "side": "YES", "amount": '
        + "9" * 5000
        + "}]}",
        "[1, 2, 3]",
        "42",
        "{" * 200_000,
        "{" * 40 + '"action": "HOLD"' + "}" * 40,
    ],
)
def test_hostile_replies_are_format_errors(text: str) -> None:
    with pytest.raises(DecisionFormatError):
        parse_answer(text)


def test_a_reply_is_read_in_work_linear_in_its_length(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parser decodes each candidate span once (and those inside a failed one), never the
    rest of the reply from every brace: the characters it decodes stay within a fixed multiple
    of the reply, however the braces are arranged."""
    decoded: list[int] = []
    real = reply.json.loads

    def counting(text: str) -> Any:
        decoded.append(len(text))
        return real(text)

    monkeypatch.setattr(reply.json, "loads", counting)
    shapes = [
        "{x}" * 60_000,
        "{" * 30 + "x" * 100_000,
        '{"a": ' * 30 + "1" + "}" * 30,
        "prose {" + "{}" * 50_000 + ' {"action": "HOLD"}',
    ]
    for text in shapes:
        decoded.clear()
        with suppress(DecisionFormatError):
            parse_answer(text)
        assert sum(decoded) <= reply.MAX_NESTING * len(text)


def test_the_maximal_brace_flood_is_refused_at_once() -> None:
    with pytest.raises(DecisionFormatError, match="nested more than"):
        parse_answer("{" * reply.MAX_REPLY_CHARS)


def completion(content: Any = "ok", usage: Any = None) -> dict[str, Any]:
    message = {"role": "assistant", "content": content}
    body: dict[str, Any] = {"id": "x", "model": "m", "choices": [{"message": message}]}
    if usage is not None:
        body["usage"] = usage
    return body


@pytest.mark.parametrize(
    "body",
    [
        completion(content=[{"type": "text", "text": "hi"}]),
        completion(content=42),
        completion(usage=[1, 2]),
        completion(usage={"prompt_tokens": "many"}),
        completion(usage={"completion_tokens": -3}),
        completion(usage={"cost": "NaN"}),
        completion(usage={"cost": {"total": 1}}),
        completion(usage={"cost": "1e400"}),
    ],
)
def test_a_malformed_completion_is_a_typed_upstream_error(body: dict[str, Any]) -> None:
    llm = client(lambda request: httpx.Response(200, json=body))
    with pytest.raises(RetryableUpstreamError, match="gave up"):
        llm.complete(REQUEST)


def test_a_well_formed_completion_still_maps() -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 5.0, "total_tokens": 15, "cost": "0.002"}
    llm = client(lambda request: httpx.Response(200, json=completion("hi", usage)))
    response = llm.complete(REQUEST)
    assert (response.content, response.completion_tokens, str(response.cost)) == ("hi", 5, "0.002")
