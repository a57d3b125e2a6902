"""The reply protocol: the prompts sent to agents and the parser of their replies."""

from arena_core.protocol.reply import parse_answer

__all__ = ["parse_answer"]
