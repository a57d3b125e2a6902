"""The completion budget of a decision: room for the answer, K forecasts and a model's thinking.

A v1 reply is one JSON object of a few hundred tokens. Under v1+panel it also carries one
``{"market_id": "...", "p_yes": 0.62}`` per panel market: at K = 300 that is about 4,000 tokens
on its own (``bench/bench_prompt_size.py`` measures it). A reasoning model (Kimi K2 Thinking,
GPT-5.2 or Gemini 3 Pro when they reason) spends its thinking from the same ``max_tokens``
before it writes a word of the answer, so a budget sized for the answer alone is cut off
mid-JSON: the reply fails to parse, is retried and ends in fill-ins. The budget is therefore
the answer, the forecasts and a thinking allowance, computed per decision from its panel.
"""

from __future__ import annotations

ANSWER_TOKENS = 1_500  # the action, its bets or sells, and the reasoning
TOKENS_PER_FORECAST = 20  # a forecast entry is about 42 characters of JSON: 14 tokens and margin
THINKING_TOKENS = 16_000  # a reasoning model's thinking before the answer
BYTES_PER_TOKEN = 4  # a rough figure for English text and tables; each tokenizer decides


def completion_budget(panel_size: int) -> int:
    """``max_tokens`` for a decision whose panel has ``panel_size`` markets (0 under v1)."""
    return ANSWER_TOKENS + TOKENS_PER_FORECAST * panel_size + THINKING_TOKENS


def expected_completion(panel_size: int) -> int:
    """The completion tokens of an answer without thinking: the answer and the forecasts."""
    return ANSWER_TOKENS + TOKENS_PER_FORECAST * panel_size
