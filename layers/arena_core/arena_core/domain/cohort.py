"""Cohorts (one per UTC week) and their agents."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from enum import StrEnum

from pydantic import field_validator

from arena_core.domain.base import DomainModel
from arena_core.domain.ids import AgentId, CohortId, FamilyId, ModelId
from arena_core.domain.lineup import AgentKind, AgentSpec
from arena_core.domain.rules import STARTING_BALANCE
from arena_core.errors import RunRequestError

METHODOLOGY_VERSION = "v1"
WEEK = timedelta(days=7)
# The calendar the arena runs in. Week arithmetic outside it overflows (0001-01-01 has no
# Sunday before it, 9999-12-31 no decision run after it); no market is that old or that far.
EARLIEST = datetime(2000, 1, 2, tzinfo=UTC)  # a Sunday
LATEST = datetime(2999, 12, 31, tzinfo=UTC)


def in_calendar(moment: datetime, what: str = "time") -> datetime:
    """An aware moment within the arena's calendar, in UTC; ``RunRequestError`` otherwise
    (before anything is claimed or written)."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise RunRequestError(f"{what} {moment.isoformat()} has no time zone")
    try:
        utc = moment.astimezone(UTC)
    except OverflowError:  # year 1 east of UTC, 9999-12-31 west of it: no time in UTC
        raise RunRequestError(f"{what} {moment.isoformat()} has no time in UTC") from None
    if not EARLIEST <= utc <= LATEST:
        raise RunRequestError(
            f"{what} {utc.isoformat()} is outside {EARLIEST.date()} to {LATEST.date()}"
        )
    return utc


def date_in_calendar(day: date, what: str = "date") -> date:
    """A calendar date within the arena's calendar; ``RunRequestError`` otherwise."""
    if not EARLIEST.date() <= day <= LATEST.date():
        raise RunRequestError(f"{what} {day} is outside {EARLIEST.date()} to {LATEST.date()}")
    return day


def _require_aware(moment: datetime) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"naive datetime {moment.isoformat()}: times must carry a timezone")
    return moment.astimezone(UTC)


def week_start_for(moment: datetime) -> datetime:
    """The Sunday 00:00 UTC that starts the week containing ``moment``."""
    utc = _require_aware(moment)
    days_since_sunday = (utc.weekday() + 1) % 7  # Monday is 0, Sunday is 6
    day = utc - timedelta(days=days_since_sunday)
    return day.replace(hour=0, minute=0, second=0, microsecond=0)


def cohort_id_for(week_start: datetime) -> str:
    """Deterministic cohort id: the normalized week start's date."""
    return f"c{week_start_for(week_start).date().isoformat()}"


def decision_week(cohort_week_start: datetime, moment: datetime) -> int:
    """Whole weeks since the cohort opened, plus one (the first run is week 1)."""
    elapsed = _require_aware(moment) - week_start_for(cohort_week_start)
    if elapsed < timedelta(0):
        raise ValueError("the moment precedes the cohort's start")
    return elapsed // WEEK + 1


class CohortStatus(StrEnum):
    ACTIVE = "active"
    COMPLETED = "completed"


class Cohort(DomainModel):
    cohort_id: CohortId
    week_start: datetime
    status: CohortStatus = CohortStatus.ACTIVE
    created_at: datetime
    lineup: tuple[AgentSpec, ...]
    methodology_version: str = METHODOLOGY_VERSION
    starting_balance: Decimal = STARTING_BALANCE
    first_decision_at: datetime | None = None
    completed_at: datetime | None = None
    # The lineup release the cohort froze (None: opened before releases were recorded).
    lineup_release: int | None = None

    @field_validator("week_start")
    @classmethod
    def _normalized(cls, value: datetime) -> datetime:
        if week_start_for(value) != _require_aware(value):
            raise ValueError("week_start must be a Sunday 00:00 UTC")
        return _require_aware(value)

    @classmethod
    def open(
        cls,
        moment: datetime,
        lineup: tuple[AgentSpec, ...],
        methodology: str = METHODOLOGY_VERSION,
        lineup_release: int | None = None,
    ) -> Cohort:
        start = week_start_for(moment)
        return cls(
            cohort_id=cohort_id_for(start),
            week_start=start,
            created_at=_require_aware(moment),
            lineup=lineup,
            methodology_version=methodology,
            lineup_release=lineup_release,
        )

    def agents(self) -> tuple[Agent, ...]:
        """The agents this cohort starts with, each with the full starting balance."""
        return tuple(Agent.start(self, spec) for spec in self.lineup)


class Agent(DomainModel):
    """One family's participant in one cohort. ``version`` guards concurrent cash updates;
    ``trades`` counts its executed trades (moved in each trade's transaction), so a leaderboard
    of one methodology's cohorts counts their trades without reading a trade."""

    agent_id: AgentId
    cohort_id: CohortId
    family_id: FamilyId
    display_name: str
    kind: AgentKind
    model_id: ModelId
    cash: Decimal
    version: int = 0
    trades: int = 0

    @staticmethod
    def id_for(cohort_id: str, family_id: str) -> str:
        return f"{cohort_id}.{family_id}"

    @staticmethod
    def family_of(agent_id: str) -> str:
        """The family id inside an agent id (cohort ids hold no dot; family ids may)."""
        return agent_id.split(".", 1)[1]

    @classmethod
    def start(cls, cohort: Cohort, spec: AgentSpec) -> Agent:
        return cls(
            agent_id=cls.id_for(cohort.cohort_id, spec.family_id),
            cohort_id=cohort.cohort_id,
            family_id=spec.family_id,
            display_name=spec.display_name,
            kind=spec.kind,
            model_id=spec.model_id,
            cash=cohort.starting_balance,
        )
