"""LocalWorkflow waits on moto's own execution state and asks the API only for the result."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from moto import mock_aws

from arena_local.workflow import MOTO_CONFIG, LocalWorkflow
from tests.support.aws import FAKE_ENV


def template_running(definition: dict[str, Any]) -> dict[str, Any]:
    """A template holding only a state machine with this (token-free) definition."""
    machine = {
        "Type": "AWS::StepFunctions::StateMachine",
        "Properties": {"DefinitionString": json.dumps(definition)},
    }
    return {"Resources": {"Machine": machine}}


def waiting(seconds: float, then: dict[str, Any]) -> dict[str, Any]:
    return {
        "StartAt": "Pause",
        "States": {
            "Pause": {"Type": "Wait", "Seconds": seconds, "Next": "End"},
            "End": then,
        },
    }


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for key, value in FAKE_ENV.items():
        monkeypatch.setenv(key, value)
    with mock_aws(config=MOTO_CONFIG):  # type: ignore[call-overload]
        yield


def count_describe_calls(workflow: LocalWorkflow) -> list[str]:
    calls: list[str] = []
    describe = workflow.client.describe_execution

    def counted(**kwargs: Any) -> Any:
        calls.append(kwargs["executionArn"])
        return describe(**kwargs)

    workflow.client.describe_execution = counted
    return calls


@pytest.mark.usefixtures("embedded")
def test_wait_returns_the_description_once_the_execution_succeeded() -> None:
    workflow = LocalWorkflow(template_running(waiting(1, {"Type": "Pass", "End": True})))
    calls = count_describe_calls(workflow)
    arn = workflow.start({"week": 1}, "succeeds")

    described = workflow.wait(arn, timeout=30)

    assert described["status"] == "SUCCEEDED"
    assert json.loads(described["output"]) == {"week": 1}
    assert calls == [arn]  # the second of waiting cost no API request


@pytest.mark.usefixtures("embedded")
def test_wait_reports_a_failed_execution() -> None:
    failing = {"Type": "Fail", "Error": "Boom", "Cause": "the test"}
    workflow = LocalWorkflow(template_running(waiting(0, failing)))

    described = workflow.run({}, "fails", timeout=30)

    assert described["status"] == "FAILED"


@pytest.mark.usefixtures("embedded")
def test_wait_gives_up_after_its_timeout() -> None:
    workflow = LocalWorkflow(template_running(waiting(1, {"Type": "Pass", "End": True})))
    arn = workflow.start({}, "slow")

    with pytest.raises(TimeoutError, match="did not finish"):
        workflow.wait(arn, timeout=0.1)
    assert workflow.wait(arn, timeout=30)["status"] == "SUCCEEDED"  # it was only slow
