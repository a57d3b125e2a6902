"""Baseline agents: reference rows that need no network and answer in the model's protocol.

- ``market-follower`` bets on the favourite of the highest-volume open markets, sizing each bet
  at the favourite's price times the maximum bet, so its implied confidence equals the market's:
  the calibration a model must beat.
- ``always-hold`` never trades: the zero line.
- ``random`` is seeded per (seed, agent, week): reproducible noise.

Under v1+panel they forecast the panel too: the follower states the market's price (skill 0
against the market by construction: a check on the pipeline), random a uniform draw, always-hold
0.5.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from decimal import ROUND_DOWN, Decimal
from typing import Any

from arena_core.domain.market import Market, MarketStatus
from arena_core.domain.money import CENT
from arena_core.domain.panel import PanelMarket
from arena_core.domain.rules import MIN_BET, max_bet
from arena_core.ports.agent import AgentContext, ForecastAgent
from arena_core.ports.llm import ChatMessage, LLMResponse

FOLLOWER_BETS = 5
FAVOURITE_BAND = (Decimal("0.05"), Decimal("0.95"))
HALF = Decimal("0.5")


def _forecasts(context: AgentContext, p_yes: Callable[[PanelMarket], Decimal]) -> list[Any]:
    """The panel forecasts (v1+panel) of a baseline: ``p_yes`` for each panel market."""
    markets = context.panel.markets if context.panel is not None else ()
    return [{"market_id": m.market_id, "p_yes": str(p_yes(m))} for m in markets]


def _reply(model: str, payload: dict[str, Any], forecasts: Sequence[Any] = ()) -> LLMResponse:
    if forecasts:
        payload = {**payload, "forecasts": list(forecasts)}
    text = json.dumps(payload, sort_keys=True)
    return LLMResponse(content=text, model=f"baseline/{model}", provider="baseline", raw_body=text)


def _tradable(markets: Sequence[Market]) -> list[Market]:
    return [m for m in markets if m.status is MarketStatus.OPEN]


def _favourite(market: Market) -> tuple[str, Decimal] | None:
    priced = [(side, market.side_price(side)) for side in market.sides]
    known = [(side, price) for side, price in priced if price is not None]
    if not known:
        return None
    side, price = max(known, key=lambda pair: pair[1])
    low, high = FAVOURITE_BAND
    return (side, price) if low <= price <= high else None


class MarketFollower(ForecastAgent):
    def respond(self, messages: Sequence[ChatMessage], context: AgentContext) -> LLMResponse:
        del messages  # baselines read the structured context, not the prompt
        # The market's own price: skill 0 against the market by construction (a pipeline check).
        forecasts = _forecasts(context, lambda m: m.p_yes)
        held = {(p.market_id, p.side) for p in context.positions}
        cash, bets = context.cash, []
        for market in _tradable(context.markets):
            favourite = _favourite(market)
            if favourite is None or (market.market_id, favourite[0]) in held:
                continue
            side, price = favourite
            amount = (price * max_bet(cash)).quantize(CENT, rounding=ROUND_DOWN)
            if amount < MIN_BET:
                break
            bets.append({"market_id": market.market_id, "side": side, "amount": str(amount)})
            cash -= amount
            if len(bets) == FOLLOWER_BETS:
                break
        if not bets:
            hold = {"action": "HOLD", "reasoning": "no favourite to follow"}
            return _reply("market-follower", hold, forecasts)
        reasoning = "Follow the market: back each favourite with confidence equal to its price."
        bet = {"action": "BET", "bets": bets, "reasoning": reasoning}
        return _reply("market-follower", bet, forecasts)


class AlwaysHold(ForecastAgent):
    def respond(self, messages: Sequence[ChatMessage], context: AgentContext) -> LLMResponse:
        del messages
        forecasts = _forecasts(context, lambda _: HALF)
        hold = {"action": "HOLD", "reasoning": "The baseline never trades."}
        return _reply("always-hold", hold, forecasts)


class RandomAgent(ForecastAgent):
    def __init__(self, seed: int = 0) -> None:
        self._seed = seed

    def respond(self, messages: Sequence[ChatMessage], context: AgentContext) -> LLMResponse:
        del messages
        rng = random.Random(f"{self._seed}:{context.agent_id}:{context.week}")
        # Its own stream: the trading draws stay what they were without a panel.
        draws = random.Random(f"{self._seed}:{context.agent_id}:{context.week}:panel")
        forecasts = _forecasts(context, lambda _: Decimal(f"{draws.random():.3f}"))
        roll = rng.random()
        if context.positions and roll < 0.2:
            position = rng.choice(list(context.positions))
            sell = {"position_id": position.position_id, "percentage": rng.choice([25, 50, 100])}
            return _reply(
                "random", {"action": "SELL", "sells": [sell], "reasoning": "random sell"}, forecasts
            )
        markets = [m for m in _tradable(context.markets) if _favourite(m) is not None]
        if roll < 0.4 or not markets:
            return _reply("random", {"action": "HOLD", "reasoning": "random hold"}, forecasts)
        cash, bets = context.cash, []
        for market in rng.sample(markets, k=min(len(markets), rng.randint(1, 3))):
            limit = max_bet(cash)
            if limit < MIN_BET:
                break
            amount = Decimal(rng.uniform(float(MIN_BET), float(limit))).quantize(CENT, ROUND_DOWN)
            side = rng.choice(market.sides)
            bets.append({"market_id": market.market_id, "side": side, "amount": str(amount)})
            cash -= amount
        if not bets:
            return _reply(
                "random", {"action": "HOLD", "reasoning": "random hold: no cash to bet"}, forecasts
            )
        return _reply(
            "random", {"action": "BET", "bets": bets, "reasoning": "random bets"}, forecasts
        )


BASELINE_AGENTS: dict[str, Callable[[], ForecastAgent]] = {
    "market-follower": MarketFollower,
    "always-hold": AlwaysHold,
    "random": RandomAgent,
}
