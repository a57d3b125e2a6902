"""Polymarket adapters: the Gamma payload parser and the market source (Gamma + CLOB)."""

from arena_core.adapters.polymarket.gamma import GammaMarketSource
from arena_core.adapters.polymarket.parse import classify, parse_market

__all__ = ["GammaMarketSource", "classify", "parse_market"]
