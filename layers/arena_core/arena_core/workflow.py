"""The decision state machine's contract: every payload that crosses a Step Functions state.

    RunInput ──Prepare──► PreparedRun ──Map: one DecideInput per item──► DecideOutput
                                         (Catch: FailureRecord)                │
                    FinalizeInput {results: [DecideOutput | FailureRecord], run} ◄┘

The handlers parse and return these models; the CDK construct derives its Map item selector,
its paths and its Catch record from them (``item_selector``, ``failure_parameters``), and its
Retry list from the error hierarchy (``retryable_errors``), so the two sides cannot drift.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from arena_core.domain.decision_status import DecisionStatus
from arena_core.errors import retryable_error_names

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


# Schemas are built on first use: each function of the workflow uses one input and one output
# model, and its cold start should not pay for the others.
class _Input(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


class _Output(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class RunInput(_Input):
    """The state machine's input: an operator may rerun one week, some cohorts or some agents."""

    week_start: date | None = None
    cohort_ids: list[str] | None = None
    agent_ids: list[str] | None = None
    max_concurrency: int | None = Field(default=None, ge=0)


class DecideItem(_Output):
    """One agent's work item, as Prepare lists it."""

    agent_id: str
    run_at: datetime
    universe_ref: str


class PreparedRun(_Output):
    """Prepare's output: the items the Map fans out over, and its concurrency (0 = all)."""

    run_at: datetime
    universe_ref: str
    markets: int
    items: tuple[DecideItem, ...]
    max_concurrency: int


class DecideInput(_Input):
    """What the Decide step receives: the item plus the execution's name (the claim owner)."""

    agent_id: str
    run_at: datetime
    universe_ref: str
    execution_id: str = "manual"


class DecideOutput(_Output):
    """What the Decide step returns for one agent."""

    agent_id: str
    decision_id: str
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

    agent_id: str
    status: Literal[DecisionStatus.FAILED] = DecisionStatus.FAILED
    error: str
    cause: str


class FinalizeInput(_Input):
    """The Map's results, and the run they belong to: its time and its execution's name (the
    run's commitment is one object per execution)."""

    results: list[DecideOutput | FailureRecord] = Field(default_factory=list)
    run_at: datetime | None = None
    execution_id: str = "manual"


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
