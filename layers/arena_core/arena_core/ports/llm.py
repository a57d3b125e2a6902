"""The LLM port: one chat completion, with everything the audit needs about how it went."""

from __future__ import annotations

from abc import ABC, abstractmethod
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from arena_core.domain.text import CleanText


class ChatMessage(BaseModel):
    model_config = ConfigDict(frozen=True)

    role: Literal["system", "user", "assistant"]
    content: CleanText


class LLMRequest(BaseModel):
    """An OpenAI-compatible chat request. Temperature is 0 for every benchmark agent."""

    model_config = ConfigDict(frozen=True)

    model: str
    messages: tuple[ChatMessage, ...]
    temperature: float = 0.0
    max_tokens: int = 4096
    response_format: dict[str, Any] | None = None
    provider: dict[str, Any] | None = None
    reasoning: dict[str, Any] | None = None


class LLMResponse(BaseModel):
    """What came back, who answered, and what it cost. Text is cleaned as it enters (a lone
    surrogate becomes U+FFFD), whichever agent produced it."""

    model_config = ConfigDict(frozen=True)

    content: CleanText
    reasoning: CleanText | None = None
    model: CleanText = Field(
        description="the model that actually answered (may differ from the request)"
    )
    provider: CleanText | None = None
    finish_reason: CleanText | None = None
    response_id: CleanText | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cost: Decimal | None = None
    latency_ms: int = 0
    attempts: int = 1
    raw_body: CleanText = ""

    @property
    def text(self) -> str:
        """The answer to parse: the content, or the reasoning when a model put it only there."""
        if self.content.strip():
            return self.content
        return self.reasoning or ""


class LLMClient(ABC):
    @abstractmethod
    def complete(self, request: LLMRequest) -> LLMResponse:
        """One completion. Raises ``FatalUpstreamError`` (401/402/404/400) or
        ``RetryableUpstreamError`` (transport, 429, 5xx after retries)."""
