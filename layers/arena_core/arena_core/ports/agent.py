"""The agent port: whatever answers a decision prompt (an LLM, or a baseline strategy).

Every agent answers with text that goes through the same parser, so baselines are held to the
same protocol as models. ``context`` carries the structured data behind the prompt, which
baselines read instead of parsing the prompt.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from arena_core.domain.holdings import PositionLine
from arena_core.domain.market import Market
from arena_core.domain.panel import Panel
from arena_core.ports.llm import ChatMessage, LLMResponse


@dataclass(frozen=True)
class AgentContext:
    agent_id: str
    week: int
    now: datetime
    cash: Decimal
    positions: Sequence[PositionLine]
    markets: Sequence[Market]
    panel: Panel | None = None  # v1+panel: the markets to state P(YES) for


class ForecastAgent(ABC):
    @abstractmethod
    def respond(self, messages: Sequence[ChatMessage], context: AgentContext) -> LLMResponse:
        """Answer the conversation so far (system, user, and any format-error feedback)."""
