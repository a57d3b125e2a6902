"""The replies export under hostile bodies (issue 26).

§5: a stored raw body nested beyond the JSON decoder's depth stopped every later publication
(``site/decision_details.py`` did not catch ``RecursionError``). It is now shown as it is, and
the site publishes. §2: ``replies.csv`` holds each raw body once (before: twice, when the body
was the message itself, as ``reply_text`` and as ``raw_body``)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path

from arena_core.adapters.site_publishers import LocalFolderPublisher
from arena_core.dataset.details import reply_text
from arena_core.domain.decisions import DecisionStatus
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.llm import ChatMessage, LLMResponse
from arena_core.services.publish_site import PublishSiteService
from arena_local.memory import memory_stores
from tests.integration.decide.conftest import make_world
from tests.support.agents import ScriptedAgent

DEEP = '{"choices": ' + "[" * 100_000 + "]" * 100_000 + "}"
HOLD = '{"action": "HOLD", "reasoning": "nothing to do"}'


class DeepBodyAgent(ForecastAgent):
    """A reply whose text is a valid HOLD, in a raw body no JSON decoder can read."""

    def respond(self, messages: Sequence[ChatMessage], context: AgentContext) -> LLMResponse:
        return LLMResponse(content=HOLD, model="m/x", provider="p", raw_body=DEEP)


def test_a_body_nested_too_deep_is_shown_as_it_is() -> None:
    assert reply_text(DEEP) == DEEP
    assert reply_text('{"choices": [{"message": {"content": " ", "reasoning": "r"}}]}') == "r"


def test_a_site_with_a_deeply_nested_raw_body_publishes(tmp_path: Path) -> None:
    world = make_world(memory_stores())
    result = world.service().decide(world.request(), DeepBodyAgent())
    assert result.status is DecisionStatus.SUCCEEDED
    PublishSiteService(world.stores, LocalFolderPublisher(tmp_path), world.blobs, world.clock).run()
    replies = json.loads(
        (tmp_path / f"data/cohorts/{world.cohort.cohort_id}/replies.json").read_text()
    )
    assert [r["raw_body"] for r in replies] == [DEEP]


def test_replies_csv_holds_each_raw_body_once(tmp_path: Path) -> None:
    world = make_world(memory_stores())
    marker = "UNIQUE-REASONING-7f3a"
    world.service().decide(
        world.request(), ScriptedAgent(HOLD.replace("nothing to do", marker))
    )  # a reply whose raw body is the message itself
    PublishSiteService(world.stores, LocalFolderPublisher(tmp_path), world.blobs, world.clock).run()
    folder = tmp_path / f"data/cohorts/{world.cohort.cohort_id}"
    text = (folder / "replies.csv").read_text()
    assert text.count(marker) == 1
    (row,) = csv.DictReader(io.StringIO(text, newline=""))
    assert row["reply_text"] == "" and marker in row["raw_body"]
