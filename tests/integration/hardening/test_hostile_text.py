"""Defect 1: a lone UTF-16 surrogate (half an emoji, valid JSON) froze the site, crashed a
week's prompts or the format-retry request; bidi overrides and controls reached the pages raw.
Text is cleaned where it enters and shown inert on the pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena_core.adapters.polymarket.parse import parse_market
from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.domain.decisions import DecisionStatus
from arena_core.domain.text import clean_text, inert_text
from arena_core.ports.llm import LLMResponse
from arena_core.protocol import parse_answer
from arena_core.services.publish_site import PublishSiteService
from tests.integration.decide.conftest import WEEK_UNIVERSE, World
from tests.support.agents import ScriptedAgent

HALF_EMOJI = "\ud83d"
RLO = "\u202e"


def reply(reasoning: str) -> str:
    bet = {"market_id": "m1", "side": "YES", "amount": 500}
    return json.dumps({"action": "BET", "bets": [bet], "reasoning": reasoning})


def test_a_surrogate_in_the_reasoning_leaves_the_site_publishable(
    world: World, tmp_path: Path
) -> None:
    hostile = f"up {HALF_EMOJI} and {RLO}evil{RLO} <b>bold</b>"
    result = world.service().decide(world.request(), ScriptedAgent(reply(hostile)))
    assert result.status is DecisionStatus.SUCCEEDED
    assert result.outcome is not None
    assert HALF_EMOJI not in result.outcome.reasoning
    publisher = LocalFolderPublisher(tmp_path)
    report = PublishSiteService(world.stores, publisher, world.blobs, world.clock).run()
    assert report.files > 0
    page = tmp_path / f"cohorts/{world.cohort.cohort_id}/{world.agents[0].agent_id}.html"
    html = page.read_text(encoding="utf-8")
    assert "up \ufffd and &lt;U+202E&gt;evil&lt;U+202E&gt; &lt;b&gt;bold&lt;/b&gt;" in html
    assert RLO not in html
    decisions = tmp_path / f"data/cohorts/{world.cohort.cohort_id}/decisions.csv"
    assert "\ufffd" in decisions.read_text(encoding="utf-8")


def test_a_surrogate_in_an_unparseable_reply_reaches_the_format_retry(world: World) -> None:
    agent = ScriptedAgent(f"I think {HALF_EMOJI} maybe", reply("fine"))
    result = world.service().decide(world.request(), agent)
    assert result.status is DecisionStatus.SUCCEEDED
    assert agent.calls == 2
    feedback = agent.conversations[1][-1].content
    feedback.encode("utf-8")  # the retry request can be sent
    assert "\ufffd" in feedback


def test_a_surrogate_in_a_gamma_question_is_cleaned_when_parsed() -> None:
    raw = {
        "id": "77",
        "question": f"Will {HALF_EMOJI} win?",
        "outcomes": '["Yes", "No"]',
        "outcomePrices": '["0.4", "0.6"]',
        "category": f"Sports{HALF_EMOJI}",
    }
    market = parse_market(raw)
    assert market.question == "Will \ufffd win?"
    assert market.category == "Sports\ufffd"
    market.model_dump_json().encode("utf-8")


def test_a_gamma_question_with_a_surrogate_does_not_stop_the_weeks_prompts(world: World) -> None:
    hostile = parse_market(
        {
            "id": "m9",
            "question": f"Q {HALF_EMOJI}?",
            "outcomes": '["Yes","No"]',
            "outcomePrices": '["0.5","0.5"]',
        }
    )
    ref = world.blobs.put(WEEK_UNIVERSE, json.dumps([hostile.model_dump(mode="json")]).encode())
    request = world.request()
    request = type(request)(request.agent_id, request.run_at, ref, request.owner)
    result = world.service().decide(request, ScriptedAgent('{"action": "HOLD", "reasoning": "x"}'))
    assert result.status is DecisionStatus.SUCCEEDED


@pytest.mark.parametrize(
    "field", ["content", "reasoning", "raw_body", "model", "provider", "finish_reason"]
)
def test_a_model_response_is_cleaned_whatever_agent_made_it(field: str) -> None:
    values = {"content": "x", "model": "m", field: f"a{HALF_EMOJI}b"}
    response = LLMResponse.model_validate(values)
    assert getattr(response, field) == "a\ufffdb"


def test_the_parser_cleans_what_it_reads() -> None:
    answer = parse_answer('{"action": "HOLD", "reasoning": "' + HALF_EMOJI + '"}')
    assert answer.reasoning == "\ufffd"
    answer = parse_answer('{"action": "HOLD", "reasoning": "\\ud83d"}')  # escaped in JSON
    assert answer.reasoning == "\ufffd"


def test_clean_and_inert_text() -> None:
    assert clean_text("a\ud83d\ude00b") == "a\ufffd\ufffdb"  # a pair split in two: both halves
    assert clean_text("a😀b") == "a😀b"
    assert inert_text("x\u202ey\u2066z\x07w\x9b") == "x<U+202E>y<U+2066>z<U+0007>w<U+009B>"
    assert inert_text("line\nnext\ttab") == "line\nnext\ttab"
