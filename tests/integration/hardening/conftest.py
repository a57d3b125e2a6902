"""The decide tests' small world (a cohort, a universe, a clock), on both stores."""

from tests.integration.decide.conftest import world

__all__ = ["world"]
