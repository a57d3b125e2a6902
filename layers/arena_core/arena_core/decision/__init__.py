"""The decision protocol: prompts sent to agents and the parser of their replies."""

from arena_core.decision.parse import parse_decision

__all__ = ["parse_decision"]
