"""The one error hierarchy of Forecaster Arena.

Every failure the system can explain is an ``ArenaError``. Adapters translate library exceptions
into these with ``raise ... from exc``; callers branch on the class, never on the message text.

    ArenaError
    ├── DomainError                    a rule of the methodology or of the ledger was broken
    │   ├── RuleViolationError              a trade the rules forbid (subclasses say which rule)
    │   ├── LedgerMismatchError        cash does not reconcile with the ledger
    │   └── InvalidProbabilityError    a probability outside [0, 1] (also a ValueError)
    ├── DecisionFormatError            a model reply that cannot be read as a decision
    ├── DecideAttemptError             a decide attempt failed after its claim (recorded, retried)
    ├── RunRequestError                a run asked for a future or non-Sunday week, an
    │                                  unknown universe, a week before any cohort
    ├── InvalidIdError                 an id outside its kind's alphabet or length (also a
    │                                  ValueError)
    ├── PersistenceError               the repository or blob store failed
    │   ├── NotFoundError              an item that must exist does not
    │   ├── StoreLimitError            a write beyond the store's limits (size, digits, count)
    │   ├── CorruptRecordError         a stored item the code cannot decode
    │   └── ConflictError              a conditional write lost a race: VersionConflictError,
    │                                  ClaimConflictError (already succeeded, held, attempts
    │                                  exhausted, claim lost), PublicationBusyError
    ├── UpstreamError                  Polymarket or the LLM provider failed
    │   ├── MarketPayloadError         a market payload lacks or garbles a field
    │   ├── RetryableUpstreamError     transient: timeouts, 429, 5xx (worth retrying later)
    │   └── FatalUpstreamError         retrying cannot help (subclasses: auth 401/403,
    │                                  credits 402, not found 404, bad request 400)
    ├── ConfigurationError             settings missing or invalid
    └── DatasetError                   a published dataset that cannot be analysed (missing,
                                       truncated or garbled tables)
"""

from __future__ import annotations


class ArenaError(Exception):
    """Base class of every error the system raises on purpose."""


# --- domain -------------------------------------------------------------------------------------


class DomainError(ArenaError):
    """A methodology or accounting rule was violated."""


class RuleViolationError(DomainError):
    """A trade the methodology forbids. ``rule`` is a stable machine-readable name."""

    rule = "rule"


class BetBelowMinimumError(RuleViolationError):
    rule = "min_bet"


class BetAboveMaximumError(RuleViolationError):
    rule = "max_bet"


class InsufficientCashError(RuleViolationError):
    rule = "insufficient_cash"


class InvalidPriceError(RuleViolationError):
    rule = "invalid_price"


class UnknownMarketError(RuleViolationError):
    rule = "unknown_market"


class UnknownSideError(RuleViolationError):
    rule = "unknown_side"


class MarketNotTradableError(RuleViolationError):
    rule = "market_not_tradable"


class UnknownPositionError(RuleViolationError):
    rule = "unknown_position"


class PositionNotOpenError(RuleViolationError):
    rule = "position_not_open"


class InvalidPercentageError(RuleViolationError):
    rule = "invalid_percentage"


class EmptyTradeError(RuleViolationError):
    """A trade that would move no shares after rounding."""

    rule = "empty_trade"


class PositionMismatchError(RuleViolationError):
    """A position was used with the wrong market, side or agent."""

    rule = "position_mismatch"


class NotSettleableError(DomainError):
    """Settlement was attempted on a market that has not resolved."""


class LedgerMismatchError(DomainError):
    """The reconciliation identity does not hold for an agent."""


class InvalidProbabilityError(DomainError, ValueError):
    """A probability outside [0, 1], or an outcome that is not 0/1.

    Also a ``ValueError`` so scoring callers can use the conventional exception.
    """


# --- decisions ----------------------------------------------------------------------------------


class DecisionFormatError(ArenaError):
    """A model reply that cannot be used as a decision; the message is fed back to the model."""


class DecideAttemptError(ArenaError):
    """A decide attempt failed after its claim for a reason no other error names (a bug, a
    surprise from a library). The attempt is recorded and counts toward the attempt limit; a
    retry resumes the stored answer if trades of it may have been applied."""


class RunRequestError(ArenaError):
    """An operator (or a stray event) asked for a run that cannot be: a week that is not a
    Sunday, a week or a run time in the future or out of range, a week before any cohort, a
    universe that is not the week's. Refused before anything is claimed or written."""


class InvalidIdError(ArenaError, ValueError):
    """An id (family, model, market, cohort, agent, decision) outside its kind's alphabet or
    length, or a display name that is empty, too long or holds control characters
    (``arena_core.domain.ids``). Also a ``ValueError``, so a pydantic model refuses it."""


# --- persistence --------------------------------------------------------------------------------


class PersistenceError(ArenaError):
    """The repository or blob store failed in a way that is not a lost race."""


class ConflictError(PersistenceError):
    """A conditional write lost: someone else changed the item first."""


class NotFoundError(PersistenceError):
    """An item that must exist does not."""


class StoreLimitError(PersistenceError):
    """A write the store would refuse: an item over 400 KB, a number beyond 38 significant
    digits or DynamoDB's range, too many items in one request. Checked before sending, so
    nothing is partly applied; retrying cannot help."""


class CorruptRecordError(PersistenceError):
    """A stored item the code cannot decode (its JSON, or a field its model refuses): reading
    it again gives the same answer, so it is never retried. A decision whose row cannot be
    decoded is closed as failed, for good."""


class VersionConflictError(ConflictError):
    """An agent's portfolio changed between read and write (optimistic concurrency)."""


class ClaimConflictError(ConflictError):
    """A decision claim could not be taken; subclasses say why."""


class DecisionAlreadySucceededError(ClaimConflictError):
    """The agent-week already has a successful decision: it is final."""


class ClaimHeldError(ClaimConflictError):
    """Another run holds the claim and its lease has not expired."""


class AttemptsExhaustedError(ClaimConflictError):
    """Retryable failures reached the attempt limit, or the decision failed for good."""


class PublicationBusyError(ConflictError):
    """Another publication holds the site's lease (or took it over from this one, once it
    expired): this one writes nothing more; the next publication publishes what changed."""


class ClaimLostError(ClaimConflictError):
    """This run no longer owns the claim (its lease was taken over): its writes are refused."""


# --- upstream -----------------------------------------------------------------------------------


class UpstreamError(ArenaError):
    """An upstream service (Polymarket, the LLM provider) failed."""


class MarketPayloadError(UpstreamError):
    """A market payload is missing or garbles a field the system needs."""

    def __init__(self, field: str, message: str, *, market_id: str | None = None) -> None:
        where = f"market {market_id}: " if market_id else ""
        super().__init__(f"{where}field {field!r}: {message}")
        self.field = field
        self.market_id = market_id


class RetryableUpstreamError(UpstreamError):
    """A transient failure that survived the client's own retries."""


class MarketRefreshError(UpstreamError):
    """A snapshot or resolution pass got none of its markets back (every fetch failed): it
    fails rather than mark at the last prices, so its scheduled invocation reaches the
    dead-letter queue and the operator."""


class FatalUpstreamError(UpstreamError):
    """A failure retrying cannot fix (bad key, no credits, unknown model, bad request)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class UpstreamAuthError(FatalUpstreamError):
    """401/403: the API key is wrong or revoked. Alarm-worthy, never a quiet HOLD."""


class UpstreamCreditsError(FatalUpstreamError):
    """402: the account cannot pay for the request. Alarm-worthy, never a quiet HOLD."""


class UpstreamNotFoundError(FatalUpstreamError):
    """404: no endpoint serves the requested model (or route)."""


class LLMBudgetExceededError(FatalUpstreamError):
    """The week's LLM spend reached the deployment's weekly budget: the model is not asked and
    the decision fails, not retried (a rerun after the budget is raised asks again)."""


class UpstreamBadRequestError(FatalUpstreamError):
    """400: the request itself was refused by the provider."""


# --- configuration ------------------------------------------------------------------------------


class ConfigurationError(ArenaError):
    """Settings are missing or invalid."""


class AlertError(ArenaError):
    """An alert to the operator could not be delivered (the alarm topic refused it)."""


# --- what a retry can fix -----------------------------------------------------------------------

# The decision workflow retries a failed step when its error is one of these: transient by
# nature (throttling that outlasted the client's own retries, a lost optimistic race, a claim
# still held by a crashed attempt, an upstream timeout). Step Functions matches the exact error
# name, not the class hierarchy, so each class is listed for itself; tests/unit/test_errors.py
# classifies every class so that a new one cannot escape the Retry unnoticed.
RETRYABLE: frozenset[type[ArenaError]] = frozenset(
    {
        PersistenceError,
        VersionConflictError,
        ClaimHeldError,
        RetryableUpstreamError,
        DecideAttemptError,
        AlertError,
        PublicationBusyError,
    }
)


def retryable_error_names() -> list[str]:
    """The names the state machine's Retry matches (an error's ``errorType`` is its class name)."""
    return sorted(error.__name__ for error in RETRYABLE)


# --- the published dataset ----------------------------------------------------------------------


class DatasetError(ArenaError):
    """A published dataset (or a table of it) that cannot be read for analysis: the message
    names the table and what is wrong, on one line."""
