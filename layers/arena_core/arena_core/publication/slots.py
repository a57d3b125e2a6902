"""Every kind of value the publication's memo keeps, each with its codec, registered once
(``publication/memo.py``)."""

from __future__ import annotations

import json

from pydantic import TypeAdapter

from arena_core.dataset.board_parts import BetsPart, dump_returns, load_returns
from arena_core.dataset.table import Digests
from arena_core.domain.portfolio import PortfolioSnapshot
from arena_core.publication.carried import FeedEntry
from arena_core.publication.completed import CompletedPart, digests_of
from arena_core.publication.costs import dump_spend, load_spend
from arena_core.publication.memo import slot
from arena_core.publication.sealed import CostRow

BETS = slot("bets", BetsPart.dump, BetsPart.load)
RETURNS = slot("returns", dump_returns, load_returns)
COMPLETED = slot("completed", CompletedPart.dump, CompletedPart.load)
SPEND = slot("spend", dump_spend, load_spend)


def _dump_digests(value: Digests) -> str:
    return json.dumps(list(value))


DIGESTS = slot("digests", _dump_digests, lambda text: digests_of(json.loads(text)))

_FINALS = TypeAdapter(dict[str, list[PortfolioSnapshot]])
FINALS = slot("finals", lambda v: _FINALS.dump_json(v).decode(), _FINALS.validate_json)
_COSTS = TypeAdapter(list[CostRow])
SEALED_COSTS = slot("sealed-costs", lambda v: _COSTS.dump_json(v).decode(), _COSTS.validate_json)
_FEED = TypeAdapter(list[FeedEntry])
DECISIONS = slot("decisions", lambda v: _FEED.dump_json(v).decode(), _FEED.validate_json)
_INDEX = TypeAdapter(dict[str, list[str]])
MARKETS = slot("markets", lambda v: _INDEX.dump_json(v).decode(), _INDEX.validate_json)
_IDS = TypeAdapter(list[str])
ASKED = slot("asked", lambda v: _IDS.dump_json(v).decode(), _IDS.validate_json)
