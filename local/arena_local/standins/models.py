"""The stand-in models: a chat completion request in, the stand-in's reply out.

The decision prompt is the last user message that holds a portfolio and a market table; on a
format retry the conversation ends with the feedback instead, and the stand-in answers the same
prompt again. The attempt number is the count of its own replies since that prompt, which is
all the malformed-reply draw needs: a request sent twice (a crash after the model call, two
concurrent executions) gets the same answer both times.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from arena_local.standins.completions import (
    Message,
    RequestError,
    completion_body,
    error_body,
    parse_request,
)
from arena_local.standins.foresight import Foresight
from arena_local.standins.lineup import MODEL_PREFIX
from arena_local.standins.malformed import garble, is_malformed
from arena_local.standins.policy import decide, hold, panel_forecasts, seeds_for
from arena_local.standins.profiles import PROFILES, Profile
from arena_local.standins.reading import is_prompt, read_prompt


def _prompt_at(messages: Sequence[Message]) -> int | None:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user" and is_prompt(messages[index].content):
            return index
    return None


class StandInModels:
    """The seven stand-ins (or any ``profiles`` keyed by family id), seeded by ``seed`` and
    knowing the simulation's future through ``foresight`` (per market id)."""

    def __init__(
        self,
        foresight: Mapping[str, Foresight],
        *,
        seed: int,
        profiles: Mapping[str, Profile] = PROFILES,
    ) -> None:
        self.foresight = foresight
        self.seed = seed
        self.profiles = profiles

    def profile(self, model: str) -> Profile | None:
        if not model.startswith(MODEL_PREFIX):
            return None
        return self.profiles.get(model.removeprefix(MODEL_PREFIX))

    def handle(self, body: Any) -> tuple[int, dict[str, Any]]:
        """The HTTP status and JSON body answering a chat completion request body."""
        try:
            model, messages = parse_request(body)
        except RequestError as exc:
            return exc.status, error_body(exc.status, str(exc))
        profile = self.profile(model)
        if profile is None:
            return 404, error_body(404, f"no stand-in model {model!r}")
        return 200, completion_body(model, messages, self.reply(profile, messages), profile)

    def reply(self, profile: Profile, messages: Sequence[Message]) -> str:
        """The reply text: the decision as JSON, malformed on the seeded occasions."""
        at = _prompt_at(messages)
        view = read_prompt(messages[at].content) if at is not None else None
        if at is None or view is None:
            return json.dumps(hold("I see no decision prompt with a portfolio and markets."))
        attempt = 1 + sum(m.role == "assistant" for m in messages[at + 1 :])
        seeds = seeds_for(self.seed, profile.family_id, view)
        reply = decide(view, self.foresight, profile, seeds)
        if view.panel:
            reply["forecasts"] = panel_forecasts(view, self.foresight, profile, seeds)
        text = json.dumps(reply)
        key = seeds.decision
        return garble(text, key, attempt) if is_malformed(key, attempt) else text
