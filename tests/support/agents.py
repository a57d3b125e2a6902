"""Scripted agents for service tests: replies (or failures) served in order."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.llm import ChatMessage, LLMResponse


class ScriptedAgent(ForecastAgent):
    """Serves the scripted replies in order; an exception in the script is raised instead.
    The last entry repeats once the script runs out. Every conversation is recorded."""

    def __init__(self, *script: str | BaseException) -> None:
        self.script = list(script)
        self.conversations: list[list[ChatMessage]] = []
        self._lock = threading.Lock()

    @property
    def calls(self) -> int:
        return len(self.conversations)

    def respond(self, messages: Sequence[ChatMessage], context: AgentContext) -> LLMResponse:
        with self._lock:
            self.conversations.append(list(messages))
            entry = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(entry, BaseException):
            raise entry
        return LLMResponse(
            content=entry, model="test/model", provider="TestProvider", raw_body=entry
        )
