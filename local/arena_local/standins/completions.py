"""The OpenAI-compatible wire format of the stand-ins: requests in, completions and errors out.

Bodies have the shape OpenRouter answers with (``id``, ``model``, ``provider``, ``choices``,
``usage`` with a ``cost``), so the real ``OpenRouterClient`` reads them as it reads the real
thing. Token counts are estimated at four characters a token; the cost uses the stand-in's
made-up prices. Nothing depends on the wall clock, so a retried request gets the same body.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from arena_local.standins.lineup import PROVIDER
from arena_local.standins.profiles import Profile

CHARS_PER_TOKEN = 4
COST_PLACES = Decimal("1e-9")
PER_MILLION = Decimal(1_000_000)


@dataclass(frozen=True)
class Message:
    role: str
    content: str


class RequestError(Exception):
    """A request the server refuses, with the HTTP status to answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def parse_request(body: Any) -> tuple[str, list[Message]]:
    """The model and messages of a chat completion request, or a ``RequestError`` (400)."""
    if not isinstance(body, dict):
        raise RequestError(400, "the request body must be a JSON object")
    model, messages = body.get("model"), body.get("messages")
    if not isinstance(model, str) or not model:
        raise RequestError(400, "'model' must be a non-empty string")
    if not isinstance(messages, list) or not messages:
        raise RequestError(400, "'messages' must be a non-empty list")
    parsed = []
    for message in messages:
        if not isinstance(message, dict):
            raise RequestError(400, "every message must be an object")
        role, content = message.get("role"), message.get("content")
        if not isinstance(role, str) or not isinstance(content, str):
            raise RequestError(400, "every message needs a string 'role' and 'content'")
        parsed.append(Message(role, content))
    return model, parsed


def error_body(status: int, message: str) -> dict[str, Any]:
    return {"error": {"code": status, "message": message}}


def _tokens(text_length: int) -> int:
    return max(1, text_length // CHARS_PER_TOKEN)


def completion_body(
    model: str, messages: Sequence[Message], content: str, profile: Profile
) -> dict[str, Any]:
    prompt_tokens = _tokens(sum(len(m.content) for m in messages))
    completion_tokens = _tokens(len(content))
    cost = (prompt_tokens * profile.input_price + completion_tokens * profile.output_price) / (
        PER_MILLION
    )
    # The id names the exchange, so that the same request always gets the same id.
    exchange = json.dumps([model, [m.content for m in messages], content])
    digest = hashlib.sha256(exchange.encode()).hexdigest()[:24]
    return {
        "id": f"gen-standin-{digest}",
        "object": "chat.completion",
        "model": model,
        "provider": PROVIDER,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "cost": str(cost.quantize(COST_PLACES)),
        },
    }
