"""The lineup in force, and changes to it as numbered releases.

Release 1 is seeded on first use (the first cohort to open, or the first ``arena lineup``
command) from the methodology's v1 table. A change reads the latest release, applies itself to
that lineup and writes the next number with a conditional put; when another writer took that
number first, it reads again and reapplies itself to the newer release. So concurrent changes
land as consecutive releases and none is lost: each sees the ones before it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from itertools import pairwise

from arena_core.domain import ids
from arena_core.domain.lineup import AgentKind, AgentSpec
from arena_core.domain.releases import (
    LineupRelease,
    first_lineup,
    release_in_force,
    with_model,
    without_family,
)
from arena_core.errors import ConfigurationError, ConflictError
from arena_core.ports.clock import Clock
from arena_core.ports.lineup_store import LineupStore

Change = Callable[[tuple[AgentSpec, ...]], tuple[AgentSpec, ...]]
MAX_RACES = 50  # writers that may overtake one change before it gives up
FIRST_NOTE = "methodology v1 table"


class LineupService:
    def __init__(
        self,
        store: LineupStore,
        clock: Clock,
        first: tuple[AgentSpec, ...] | None = None,
    ) -> None:
        self._store = store
        self._clock = clock
        self._first = first if first is not None else first_lineup()

    def releases(self) -> list[LineupRelease]:
        """Every release, oldest first, release 1 seeded if there is none yet."""
        return self._store.releases() or self._seed()

    def in_force(self, at: datetime | None = None) -> LineupRelease:
        """The release a cohort opening at ``at`` (default now) freezes."""
        found = release_in_force(self.releases(), at or self._clock.now())
        if found is None:  # unreachable: releases() holds at least release 1
            raise ConfigurationError("no lineup release")
        return found

    def set_model(
        self,
        family_id: str,
        model_id: str,
        *,
        display_name: str | None = None,
        provider: str | None = None,
    ) -> LineupRelease:
        """The next release, with ``family_id`` (existing or new) answered by ``model_id``.
        Every id and name is checked first (``domain.ids``): a typo never becomes a release."""
        ids.family_id(family_id)
        ids.model_id(model_id)
        if display_name is not None:
            ids.display_name(display_name)
        if provider is not None:
            ids.provider_name(provider)
        retired = retired_families(self.releases())
        if family_id in retired:
            raise ConfigurationError(
                f"{family_id} was retired in release {retired[family_id]}: a family id is never "
                "reused; give the new model line a new family id"
            )

        def change(lineup: tuple[AgentSpec, ...]) -> tuple[AgentSpec, ...]:
            try:
                return with_model(
                    lineup, family_id, model_id, display_name=display_name, provider=provider
                )
            except ValueError as exc:
                raise ConfigurationError(str(exc)) from exc

        return self._append(change, f"{family_id} → {model_id}")

    def retire(self, family_id: str) -> LineupRelease:
        """The next release, without ``family_id``: later cohorts no longer have it, and its id
        is never given to another model line (add a new family id for that)."""

        def change(lineup: tuple[AgentSpec, ...]) -> tuple[AgentSpec, ...]:
            try:
                remaining = without_family(lineup, family_id)
            except ValueError as exc:
                raise ConfigurationError(str(exc)) from exc
            if not any(s.kind is AgentKind.LLM for s in remaining):
                # A cohort needs agents to decide and complete; baselines alone are reference rows.
                raise ConfigurationError(
                    f"{family_id} is the last model family: add another before retiring it"
                )
            return remaining

        return self._append(change, f"{family_id} retired")

    def _append(self, change: Change, note: str) -> LineupRelease:
        for _ in range(MAX_RACES):
            latest = self.releases()[-1]
            lineup = change(latest.lineup)
            if lineup == latest.lineup:
                raise ConfigurationError(
                    f"nothing changes: release {latest.release} already has that ({note})"
                )
            release = LineupRelease(
                release=latest.release + 1,
                effective_from=self._clock.now(),
                lineup=lineup,
                note=note,
            )
            if self._store.add_release(release):
                return release
        raise ConflictError(f"lineup change ({note}) kept losing to other writers")

    def _seed(self) -> list[LineupRelease]:
        first = LineupRelease(
            release=1, effective_from=self._clock.now(), lineup=self._first, note=FIRST_NOTE
        )
        self._store.add_release(first)  # lost to a concurrent seeder: theirs stands
        return self._store.releases()


def retired_families(releases: list[LineupRelease]) -> dict[str, int]:
    """Families of earlier releases missing from the latest, with the release that dropped
    each."""
    retired: dict[str, int] = {}
    for before, after in pairwise(releases):
        now = {s.family_id for s in after.lineup}
        retired.update(
            {s.family_id: after.release for s in before.lineup if s.family_id not in now}
        )
    latest = {s.family_id for s in releases[-1].lineup} if releases else set()
    return {family: release for family, release in retired.items() if family not in latest}
