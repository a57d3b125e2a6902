"""Every sealed cohort, as the state links them: what the publication takes from them, each
through the memo (a year of sealed cohorts is read only when one was sealed since, or by new
code), and the sealing of a newly completed cohort."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any

from arena_core.domain.portfolio import PortfolioSnapshot
from arena_core.publication.carried import FeedEntry
from arena_core.publication.memo import Memo
from arena_core.publication.sealed import SealedCohort, archived
from arena_core.publication.slots import ASKED, DECISIONS, FINALS, MARKETS, SEALED_COSTS
from arena_core.publication.state import Objects, State

RECORD, DATA = "sealed/", "sealed-data/"
Row = dict[str, Any]


class SealedSet:
    def __init__(self, state: State, objects: Objects, memo: Memo) -> None:
        self._state = state
        self._objects = objects
        self._memo = memo
        self._records: dict[str, SealedCohort | None] = {}
        self._data: dict[str, dict[str, bytes]] = {}

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(n.removeprefix(RECORD) for n in self._state.links if n.startswith(RECORD))

    def key(self) -> list[list[str]]:
        """What every aggregate of the sealed cohorts is a function of."""
        return sorted([n, d] for n, d in self._state.links.items() if n.startswith(RECORD))

    def record(self, cohort_id: str) -> SealedCohort | None:
        if cohort_id not in self._records:
            body = self._objects.get(RECORD + cohort_id)
            self._records[cohort_id] = SealedCohort.load(body)
        return self._records[cohort_id]

    def records(self) -> list[SealedCohort]:
        """Every sealed cohort's record; one that cannot be read is unsealed (sealed again)."""
        found = []
        for cohort_id in sorted(self.ids):
            record = self.record(cohort_id)
            if record is None:
                self._state.links.pop(RECORD + cohort_id, None)
            else:
                found.append(record)
        return found

    def add(self, record: SealedCohort, data: Mapping[str, bytes], archive: bytes) -> None:
        self._objects.put(DATA + record.cohort_id, archive)
        self._objects.put(RECORD + record.cohort_id, record.dump())
        self._records[record.cohort_id] = record
        self._data[record.cohort_id] = dict(data)

    def data(self, cohort_id: str) -> dict[str, bytes]:
        """A sealed cohort's data tables (``data/cohorts/<id>/...``) as sealed."""
        if cohort_id not in self._data:
            self._data[cohort_id] = archived(self._objects.get(DATA + cohort_id))
        return self._data[cohort_id]

    # --- aggregates, through the memo ---------------------------------------------------------

    def finals(self, cohort_id: str) -> list[PortfolioSnapshot] | None:
        if cohort_id not in self.ids:
            return None
        return self._all_finals.get(cohort_id)

    @cached_property
    def _all_finals(self) -> dict[str, list[PortfolioSnapshot]]:
        return self._memo.get(
            FINALS,
            "board/sealed/finals",
            self.key(),
            lambda: {r.cohort_id: list(r.finals) for r in self.records()},
        )

    def positions(self, cohorts: frozenset[str]) -> list[Row]:
        """The position rows of these sealed cohorts (every record read: only where a kept
        part could not be used)."""
        found = [
            p.model_dump() for r in self.records() if r.cohort_id in cohorts for p in r.positions
        ]
        return sorted(found, key=lambda row: (row["cohort_id"], row["position_id"]))

    def costs(self) -> list[Row]:
        rows = self._memo.get(
            SEALED_COSTS,
            "board/sealed/costs",
            self.key(),
            lambda: [c for r in self.records() for c in r.costs],
        )
        return [row.model_dump() for row in rows]

    def decisions(self) -> list[FeedEntry]:
        """The sealed cohorts' latest decisions (each cohort's and each agent's)."""
        return self._memo.get(
            DECISIONS,
            "board/sealed/decisions",
            self.key(),
            lambda: [d for r in self.records() for d in r.decisions],
        )

    def markets(self) -> dict[str, list[str]]:
        """Every market a sealed cohort held, traded or was asked about, with those cohorts."""

        def index() -> dict[str, list[str]]:
            found: dict[str, list[str]] = {}
            for record in self.records():
                for market_id in record.markets:
                    found.setdefault(market_id, []).append(record.cohort_id)
            return found

        return self._memo.get(MARKETS, "board/sealed/markets", self.key(), index)

    def asked(self) -> frozenset[str]:
        """Every market a sealed cohort's panel asked about."""
        found = self._memo.get(
            ASKED,
            "board/sealed/asked",
            self.key(),
            lambda: sorted({m for r in self.records() for m in r.asked}),
        )
        return frozenset(found)
