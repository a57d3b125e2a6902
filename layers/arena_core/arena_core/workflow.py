"""The decision state machine's contract: every payload that crosses a Step Functions state.

    RunInput ──Prepare──► PreparedRun ──Map: one DecideInput per item──► DecideOutput
                                         (Catch: FailureRecord)                │
                    FinalizeInput {results: [DecideOutput | FailureRecord], run} ◄┘

The handlers parse and return these models; the CDK construct derives its Map item selector,
its paths and its Catch record from them (``item_selector``, ``failure_parameters``), and its
Retry list from the error hierarchy (``retryable_errors``), so the two sides cannot drift.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Callable
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
from arena_core.domain.commitment_log import EXECUTION_NAME as EXECUTION_NAME_PATTERN
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
ExecutionName = Annotated[str, _matching(EXECUTION_NAME_PATTERN, "an execution name")]
UniverseRef = Annotated[str, _matching(_UNIVERSE, "a universe reference")]

M = TypeVar("M", bound=BaseModel)


def parse_event(model: type[M], event: Any) -> M:
    """A Lambda event as its model, or a ``RunRequestError`` saying what is wrong in one line:
    every id, time and reference is checked here, before any service runs."""
    try:
        return model.model_validate(event if isinstance(event, dict) else {"event": event})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part)[:60] for part in first.get("loc", ())) or "event"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        known = ""
        if first["type"] == "extra_forbidden":
            known = f"; the keys it takes: {', '.join(model.model_fields)}"
        raise RunRequestError(
            f"{model.__name__}: {where}: {first['msg'][:200]}{more}{known}"
        ) from None


# Schemas are built on first use: each function of the workflow uses one input and one output
# model, and its cold start should not pay for the others. An unknown key is refused, never
# ignored: a console rerun typed {"week": ...} or {"agent_id": ...} would otherwise mean "this
# week, every agent" and seal a second run.
class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class _Output(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class RunInput(_Input):
    """The state machine's input: an operator may rerun one week, some cohorts or some agents.
    ``max_concurrency``: agents decided at once (0: all); none given, the deployment's
    ``ARENA_RUN_CONCURRENCY``."""

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


# A failed step's cause stays in the run's state until Finalize (Step Functions caps a state at
# 256 KB): at most this many bytes of JSON each, so 50 failed agents hold under 100 KB.
MAX_CAUSE_BYTES = 1_000
MAX_ERROR_CHARS = 120  # an error's type name (Lambda's, Step Functions' or an exception's)


def bounded_text(text: str, limit: int = MAX_CAUSE_BYTES) -> str:
    """``text`` cut so that its JSON encoding (as a state holds it, escapes included) fits in
    ``limit`` bytes, saying how much was cut."""
    if len(json.dumps(text)) <= limit:
        return text
    low, high = 0, min(len(text), limit)
    while low < high:  # the longest prefix that fits beside the note
        middle = (low + high + 1) // 2
        note = f"... ({len(text) - middle} more characters)"
        if len(json.dumps(text[:middle] + note)) <= limit:
            low = middle
        else:
            high = middle - 1
    return f"{text[:low]}... ({len(text) - low} more characters)"


Handler = TypeVar("Handler", bound=Callable[..., Any])


def bounded_failures(handler: Handler) -> Handler:
    """A workflow step's handler whose failures reach Step Functions bounded: the same error
    type (Retry and Catch match on its name), the message cut to ``MAX_CAUSE_BYTES`` and no
    trace below this frame. Lambda puts the message and the trace in the error's cause, which
    the Catch keeps in the run's state for Finalize; a whole trace per failed agent overflowed
    the 256 KB state in a week of mass failures, and the run then never sealed."""

    @functools.wraps(handler)
    def step(*args: Any, **kwargs: Any) -> Any:
        try:
            return handler(*args, **kwargs)
        except Exception as exc:
            # The whole error, trace included, goes to the function's log; the state gets less.
            logging.getLogger(__name__).error("step failed", exc_info=exc)
            raise bounded_copy(exc).with_traceback(None) from None

    return step  # type: ignore[return-value]


def bounded_copy(exc: Exception) -> Exception:
    """``exc`` itself when its message is short enough; else an instance of a subclass of its
    class with the same name (what Step Functions matches) and the message cut."""
    text = str(exc)
    limit = MAX_CAUSE_BYTES // 2
    if len(json.dumps(text)) <= limit:
        return exc
    cls = type(exc)
    attributes = {
        "__init__": Exception.__init__,
        "__str__": Exception.__str__,
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
    }
    try:
        return type(cls.__name__, (cls,), attributes)(bounded_text(text, limit))  # type: ignore[no-any-return]
    except TypeError:  # a class that cannot be subclassed so: the name alone is kept
        plain = type(cls.__name__, (Exception,), {"__module__": cls.__module__})
        return plain(bounded_text(text, limit))  # type: ignore[no-any-return]


def _bounded(limit: int) -> BeforeValidator:
    return BeforeValidator(lambda v: bounded_text(v, limit) if isinstance(v, str) else v)


class FailureRecord(_Output):
    """What the Catch records for an agent whose step failed for good: the error's type and
    its cause, bounded (a cause that arrives longer is cut, never refused: Finalize must seal)."""

    agent_id: AgentId
    status: Literal[DecisionStatus.FAILED] = DecisionStatus.FAILED
    error: Annotated[str, _bounded(MAX_ERROR_CHARS)]
    cause: Annotated[str, _bounded(MAX_CAUSE_BYTES)]


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
