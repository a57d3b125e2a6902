"""The LLM agent: the conversation goes to an OpenAI-compatible chat model at temperature 0,
with a completion budget sized for the decision's panel (``protocol.budget``) unless one is set."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.llm import ChatMessage, LLMClient, LLMRequest, LLMResponse
from arena_core.protocol.budget import completion_budget


class LLMAgent(ForecastAgent):
    def __init__(
        self,
        client: LLMClient,
        model_id: str,
        *,
        max_tokens: int | None = None,
        json_mode: bool = True,
        provider: dict[str, Any] | None = None,
        reasoning: dict[str, Any] | None = None,
    ) -> None:
        self._client = client
        self._model = model_id
        self._max_tokens = max_tokens
        self._format = {"type": "json_object"} if json_mode else None
        self._provider = provider
        self._reasoning = reasoning

    def respond(self, messages: Sequence[ChatMessage], context: AgentContext) -> LLMResponse:
        # The prompt carries everything a model may see; the context sizes the budget only.
        panel = len(context.panel.markets) if context.panel is not None else 0
        request = LLMRequest(
            model=self._model,
            messages=tuple(messages),
            temperature=0.0,
            max_tokens=self._max_tokens or completion_budget(panel),
            response_format=self._format,
            provider=self._provider,
            reasoning=self._reasoning,
        )
        return self._client.complete(request)
