"""Every error class is classified as retryable or not, and the workflow retries exactly those.

Step Functions retries a failed Decide step when its error name (the exception's class name) is
in the Retry list, matched exactly, not by inheritance. A new error class must be added to the
table below, with a decision: that is how a subclass cannot silently escape (or join) the Retry.
"""

from __future__ import annotations

import importlib

from arena_core import errors
from arena_core.workflow import PLATFORM_RETRYABLE, retryable_errors

# Modules that define ArenaError subclasses; imported so that every class is seen.
DEFINING_MODULES = ("arena_core.errors", "arena_local.demo.errors")
RETRYABLE = {
    "ArenaError": False,
    "DomainError": False,
    "RuleViolationError": False,
    "BetBelowMinimumError": False,
    "BetAboveMaximumError": False,
    "InsufficientCashError": False,
    "InvalidPriceError": False,
    "UnknownMarketError": False,
    "UnknownSideError": False,
    "MarketNotTradableError": False,
    "UnknownPositionError": False,
    "PositionNotOpenError": False,
    "InvalidPercentageError": False,
    "EmptyTradeError": False,
    "PositionMismatchError": False,
    "NotSettleableError": False,
    "LedgerMismatchError": False,
    "InvalidProbabilityError": False,
    "DecisionFormatError": False,
    "DecideAttemptError": True,  # recorded, counted toward the attempt limit, then retried
    "RunRequestError": False,  # a future or non-Sunday week: asking again cannot help
    "MarketRefreshError": False,  # raised by scheduled passes only: Lambda's own retries
    "LLMBudgetExceededError": False,  # the week's budget is spent: asking again spends more
    "InvalidIdError": False,  # an id outside its alphabet stays outside it
    "PersistenceError": True,  # throttling or a service fault that outlasted the client's retries
    "ConflictError": False,
    "NotFoundError": False,
    "StoreLimitError": False,  # an item or number the store refuses: the same write fails again
    "CorruptRecordError": False,  # an item the code cannot decode: reading again cannot help
    "VersionConflictError": True,  # a lost optimistic race: read again
    "ClaimConflictError": False,
    "DecisionAlreadySucceededError": False,
    "ClaimHeldError": True,  # a crashed attempt's lease: wait for it to expire
    "AttemptsExhaustedError": False,  # deliberately raised for the Catch
    "ClaimLostError": False,
    "PublicationBusyError": True,  # another publication held the site: Finalize tries again
    "UpstreamError": False,
    "MarketPayloadError": False,
    "RetryableUpstreamError": True,
    "FatalUpstreamError": False,
    "UpstreamAuthError": False,
    "UpstreamCreditsError": False,
    "UpstreamNotFoundError": False,
    "UpstreamBadRequestError": False,
    "ConfigurationError": False,
    "AlertError": True,  # the topic refused a run's alert: send it again rather than lose it
    "DemoError": False,
    "MarketsFileError": False,
    "LedgerMismatchDemoError": False,
    "DatasetError": False,  # a published dataset that cannot be analysed: fix the input
}


def every_error_class() -> set[type[errors.ArenaError]]:
    for module in DEFINING_MODULES:
        importlib.import_module(module)
    found: set[type[errors.ArenaError]] = set()
    pending: list[type[errors.ArenaError]] = [errors.ArenaError]
    while pending:
        cls = pending.pop()
        found.add(cls)
        pending += cls.__subclasses__()
    return found


def test_every_error_class_is_classified() -> None:
    names = {cls.__name__ for cls in every_error_class()}
    assert names == set(RETRYABLE), (
        f"unclassified: {sorted(names - set(RETRYABLE))}; gone: {sorted(set(RETRYABLE) - names)}"
    )


def test_the_hierarchy_exports_exactly_the_retryable_classes() -> None:
    exported = {cls.__name__ for cls in errors.RETRYABLE}
    assert exported == {name for name, retry in RETRYABLE.items() if retry}


def test_the_workflow_retries_the_retryable_classes_and_lambdas_own_faults() -> None:
    assert retryable_errors() == [*errors.retryable_error_names(), *PLATFORM_RETRYABLE]
    assert set(errors.retryable_error_names()) == {n for n, r in RETRYABLE.items() if r}
