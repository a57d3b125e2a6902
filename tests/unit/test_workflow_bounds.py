"""What a failed workflow step leaves in the run's state is bounded (Step Functions caps a state
at 256 KB): the error keeps its class and name (Retry, Catch and callers match on them), its
message is cut, and a Catch's record is cut rather than refused."""

from __future__ import annotations

import json

import pytest

from arena_core.errors import ArenaError, ClaimHeldError, RunRequestError
from arena_core.workflow import (
    MAX_CAUSE_BYTES,
    FailureRecord,
    bounded_copy,
    bounded_failures,
    bounded_text,
)


def test_a_long_message_is_cut_to_its_json_size_saying_how_much() -> None:
    text = "\N{FIRE}" * 5_000  # 12 bytes each, escaped
    cut = bounded_text(text, 1_000)
    assert len(json.dumps(cut)) <= 1_000
    assert cut.endswith(f"... ({5_000 - len(cut.split('...')[0])} more characters)")
    assert bounded_text("short", 1_000) == "short"


def test_the_copy_keeps_the_class_and_the_name() -> None:
    short = ClaimHeldError("held")
    assert bounded_copy(short) is short
    long = RunRequestError("x" * 50_000)
    copy = bounded_copy(long)
    assert isinstance(copy, RunRequestError) and isinstance(copy, ArenaError)
    assert type(copy).__name__ == "RunRequestError"
    assert len(json.dumps(str(copy))) <= MAX_CAUSE_BYTES // 2


def test_a_failing_step_raises_its_own_error_bounded_and_without_a_deep_trace() -> None:
    def deep(n: int) -> None:
        if n:
            deep(n - 1)
        raise RunRequestError("y" * 20_000)

    step = bounded_failures(lambda: deep(30))
    with pytest.raises(RunRequestError) as caught:
        step()
    assert len(str(caught.value)) < MAX_CAUSE_BYTES
    depth = 0
    trace = caught.value.__traceback__
    while trace is not None:
        depth, trace = depth + 1, trace.tb_next
    assert depth <= 2  # the step's frame, not the 30 below it


def test_a_catch_record_arriving_long_is_cut_not_refused() -> None:
    record = FailureRecord(agent_id="c2026-03-01.gpt-5", error="E" * 500, cause="z" * 100_000)
    assert len(record.error) <= 120 + 40
    assert len(json.dumps(record.cause)) <= MAX_CAUSE_BYTES
