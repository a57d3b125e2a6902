"""The decision state machine's contract: every payload that crosses a Step Functions state.

    RunInput ──Prepare──► PreparedRun ──Map: one DecideInput per item──► DecideOutput
                                         (Catch: FailureRecord)                │
                    FinalizeInput {results: [DecideOutput | FailureRecord], run} ◄┘

The handlers parse and return these models; the CDK construct derives its Map item selector,
its paths and its Catch record from them (``item_selector``, ``failure_parameters``), and its
Retry list from the error hierarchy (``retryable_errors``), so the two sides cannot drift.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
)

from arena_core.constants import UNIVERSE_PREFIX
from arena_core.domain.cohort import date_in_calendar, in_calendar
from arena_core.domain.decision_status import DecisionStatus
from arena_core.domain.ids import AgentId, CohortId, DecisionId
from arena_core.errors import ArenaError, RunRequestError, retryable_error_names

# Where the state machine keeps each payload in its state document.
ITEMS_PATH = "$.items"
MAX_CONCURRENCY_PATH = "$.max_concurrency"
RESULTS_PATH = "$.results"
RUN_AT_PATH = "$.run_at"  # Prepare's output stays in the state beside the Map's results
FAILURE_PATH = "$.failure"  # where the Catch puts the error object ({Error, Cause})
EXECUTION_NAME = "$$.Execution.Name"

# Errors Lambda itself reports: throttling and service faults, and a function that died
# (runtime exit, out of memory) or hit its timeout. Work is checkpointed and every write is
# conditional, so running the step again finishes what was begun.
PLATFORM_RETRYABLE = (
    "Lambda.ServiceException",
    "Lambda.AWSLambdaException",
    "Lambda.SdkClientException",
    "Lambda.TooManyRequestsException",
    "Runtime.ExitError",
    "Sandbox.Timedout",
    "Lambda.Unknown",
)


MAX_ITEMS = 10_000  # agents (or cohorts) a run names, at most
_EXECUTION = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}")  # Step Functions' names, bounded
_UNIVERSE = re.compile(
    rf"(?:s3://[a-z0-9][a-z0-9.-]{{1,62}}/)?{UNIVERSE_PREFIX}[A-Za-z0-9_.-]{{1,60}}"
)


def _calendar_date(day: date) -> date:
    try:
        return date_in_calendar(day, "week_start")
    except ArenaError as exc:
        raise ValueError(str(exc)) from exc


def _calendar_time(moment: datetime) -> datetime:
    try:
        return in_calendar(moment, "run_at")
    except ArenaError as exc:
        raise ValueError(str(exc)) from exc


def _matching(pattern: re.Pattern[str], kind: str) -> AfterValidator:
    def check(text: str) -> str:
        if pattern.fullmatch(text) is None:
            raise ValueError(f"not {kind}: {text[:60]!r}")
        return text

    return AfterValidator(check)


WeekDate = Annotated[date, AfterValidator(_calendar_date)]


def _text_time(value: object) -> object:
    """A run time is ISO 8601 text (or a datetime): a number would be read as Unix seconds."""
    if isinstance(value, bool | int | float):
        raise ValueError("not an ISO 8601 time: a number")
    return value


RunTime = Annotated[AwareDatetime, BeforeValidator(_text_time), AfterValidator(_calendar_time)]
ExecutionName = Annotated[str, _matching(_EXECUTION, "an execution name")]
UniverseRef = Annotated[str, _matching(_UNIVERSE, "a universe reference")]

M = TypeVar("M", bound=BaseModel)


def parse_event(model: type[M], event: Any) -> M:
    """A Lambda event as its model, or a ``RunRequestError`` saying what is wrong in one line:
    every id, time and reference is checked here, before any service runs."""
    try:
        return model.model_validate(event if isinstance(event, dict) else {"event": event})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "event"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise RunRequestError(f"{model.__name__}: {where}: {first['msg'][:200]}{more}") from None


# Schemas are built on first use: each function of the workflow uses one input and one output
# model, and its cold start should not pay for the others.
class _Input(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


class _Output(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class RunInput(_Input):
    """The state machine's input: an operator may rerun one week, some cohorts or some agents."""

    week_start: WeekDate | None = None
    cohort_ids: list[CohortId] | None = Field(default=None, max_length=MAX_ITEMS)
    agent_ids: list[AgentId] | None = Field(default=None, max_length=MAX_ITEMS)
    max_concurrency: int | None = Field(default=None, ge=0, le=MAX_ITEMS)


class DecideItem(_Output):
    """One agent's work item, as Prepare lists it."""

    agent_id: AgentId
    run_at: RunTime
    universe_ref: UniverseRef


class PreparedRun(_Output):
    """Prepare's output: the items the Map fans out over, and its concurrency (0 = all)."""

    run_at: datetime
    universe_ref: str
    markets: int
    items: tuple[DecideItem, ...]
    max_concurrency: int


class DecideInput(_Input):
    """What the Decide step receives: the item plus the execution's name (the claim owner)."""

    agent_id: AgentId
    run_at: RunTime
    universe_ref: UniverseRef
    execution_id: ExecutionName = "manual"


class DecideOutput(_Output):
    """What the Decide step returns for one agent."""

    agent_id: AgentId
    decision_id: DecisionId
    status: DecisionStatus
    already_decided: bool = False  # a rerun found the decision already final
    action: str | None = None
    fallback: bool = False
    executed: int = 0
    rejected: int = 0
    error: str | None = None
    upstream_retries: int = 0


class FailureRecord(_Output):
    """What the Catch records for an agent whose step failed for good."""

    agent_id: AgentId
    status: Literal[DecisionStatus.FAILED] = DecisionStatus.FAILED
    error: str
    cause: str


class FinalizeInput(_Input):
    """The Map's results, and the run they belong to: its time and its execution's name (the
    run's commitment is one object per execution)."""

    results: list[DecideOutput | FailureRecord] = Field(default_factory=list, max_length=MAX_ITEMS)
    run_at: RunTime | None = None
    execution_id: ExecutionName = "manual"


def item_selector() -> dict[str, str]:
    """The Map's ItemSelector: every field of a ``DecideItem`` from the item, plus the owner."""
    fields = {f"{name}.$": f"$$.Map.Item.Value.{name}" for name in DecideItem.model_fields}
    selector = {**fields, "execution_id.$": EXECUTION_NAME}
    missing = set(DecideInput.model_fields) - {key.removesuffix(".$") for key in selector}
    if missing:  # a field added to DecideInput must be fed by the Map
        raise ValueError(f"the Map does not feed {sorted(missing)} to Decide")
    return selector


def failure_parameters() -> dict[str, str]:
    """The Catch's Pass state: a ``FailureRecord`` from the item and the caught error."""
    parameters = {
        "agent_id.$": "$.agent_id",
        "status": DecisionStatus.FAILED.value,
        "error.$": f"{FAILURE_PATH}.Error",
        "cause.$": f"{FAILURE_PATH}.Cause",
    }
    if {key.removesuffix(".$") for key in parameters} != set(FailureRecord.model_fields):
        raise ValueError("the Catch's record does not match FailureRecord")
    return parameters


def finalize_payload() -> dict[str, str]:
    """Finalize's input: the Map's results and the run, as ``FinalizeInput`` reads them."""
    payload = {
        "results.$": RESULTS_PATH,
        "run_at.$": RUN_AT_PATH,
        "execution_id.$": EXECUTION_NAME,
    }
    if {key.removesuffix(".$") for key in payload} != set(FinalizeInput.model_fields):
        raise ValueError("the Finalize payload does not match FinalizeInput")
    return payload


def retryable_errors() -> list[str]:
    """The Decide step's Retry list: the application's retryable errors, then Lambda's."""
    return [*retryable_error_names(), *PLATFORM_RETRYABLE]
