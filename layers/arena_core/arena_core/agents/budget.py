"""An LLM agent held to the deployment's weekly LLM budget (``ARENA_LLM_WEEKLY_BUDGET``).

Before each reply (the first and each format retry) the week's spend so far is read; once it
has reached the budget the model is not asked, and the decision fails with
``LLMBudgetExceededError``: recorded on the decision as such, never retried by the run (a fatal
error), and named in the run's alert. Each reply's cost (OpenRouter's ``usage.cost``) is added
to the week's spend. Agents answer at once, so the week can end above the budget by what the
agents already asking spend.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from arena_core.domain.cohort import week_start_for
from arena_core.errors import LLMBudgetExceededError
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.llm import ChatMessage, LLMResponse
from arena_core.ports.spend_store import SpendStore


class BudgetedAgent(ForecastAgent):
    def __init__(self, inner: ForecastAgent, spend: SpendStore, budget: Decimal) -> None:
        self._inner, self._spend, self._budget = inner, spend, budget

    def respond(self, messages: Sequence[ChatMessage], context: AgentContext) -> LLMResponse:
        week = week_start_for(context.now).date()
        spent = self._spend.spent(week)
        if spent >= self._budget:
            raise LLMBudgetExceededError(
                f"the weekly LLM budget of ${self._budget} is spent (${spent:.4f} in the week "
                f"of {week}): {context.agent_id} was not asked"
            )
        response = self._inner.respond(messages, context)
        if response.cost:
            self._spend.add(week, response.cost)
        return response
