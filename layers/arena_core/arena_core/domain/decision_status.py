"""A decision's state: the one vocabulary of the store, the service, the workflow's Catch and
the site. Its own module, free of models, so the workflow contract imports it cheaply."""

from __future__ import annotations

from enum import StrEnum


class DecisionStatus(StrEnum):
    CLAIMED = "claimed"  # a run holds the claim (lease) and is working on it
    SUCCEEDED = "succeeded"  # final: the answer was recorded and its trades applied
    RETRYABLE_FAILURE = "retryable_failure"  # an attempt failed; a later run may try again
    EXHAUSTED = "exhausted"  # final: the last attempt allowed failed too
    # final: the workflow recorded this agent's step as failed (its Catch), or the decision
    # could not be stored or decoded (retrying cannot help)
    FAILED = "failed"
