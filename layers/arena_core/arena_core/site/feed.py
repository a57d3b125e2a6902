"""The home page's feed: the latest decisions of every live cohort, newest first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena_core.dataset.records import CohortView, DecisionView
from arena_core.domain.cohort import Agent

FEED_LENGTH = 12


@dataclass(frozen=True)
class FeedItem:
    agent: Agent
    decision: DecisionView


def latest_decisions(views: Sequence[CohortView], limit: int = FEED_LENGTH) -> list[FeedItem]:
    found = [FeedItem(a.agent, d) for v in views for a in v.agents for d in a.decisions]
    found.sort(key=lambda i: (i.decision.record.updated_at, i.decision.record.decision_id))
    return found[::-1][:limit]
