"""cdk-nag (on every synth, in the session fixture), cfn-lint and asl-validator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App, Stack, Validations
from aws_cdk import aws_s3 as s3
from aws_cdk.assertions import Template
from cdk_nag import AwsSolutionsChecks

from infra.validate import run_asl_validator, run_cfn_lint, state_machine_definition


def test_cdk_nag_leaves_no_unacknowledged_finding(
    synthesized: tuple[Template, dict[str, Any], Path],
) -> None:
    # The session fixture synthesized the real app with the checks on: it would have raised.
    assert synthesized[1]["Resources"]
    # A negative control: the same checks do fail an app that breaks a rule.
    app = App()
    stack = Stack(app, "Broken")
    s3.Bucket(stack, "NoSsl")
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    with pytest.raises(Exception, match="AwsSolutions-S10"):
        app.synth()


def test_cfn_lint_reports_nothing_but_w3005(
    synthesized: tuple[Template, dict[str, Any], Path],
) -> None:
    result = run_cfn_lint(synthesized[2])
    assert result.returncode == 0, result.stdout


def test_asl_validator_accepts_the_resolved_definition(raw: dict[str, Any]) -> None:
    definition = state_machine_definition(raw)
    assert "${Token" not in json.dumps(definition)
    result = run_asl_validator(definition)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_wildcard_resource_outside_the_two_acknowledged_kinds_of_policy_fails_synth() -> None:
    """The IAM5[Resource::*] acknowledgment was stack-wide: any new grant on '*' passed
    silently. It now sits on the functions' and the state machine's policies alone."""
    from aws_cdk import aws_iam as iam  # noqa: PLC0415

    from infra.app import build_app  # noqa: PLC0415
    from tests.infra.conftest import FAST  # noqa: PLC0415

    app, stack = build_app(nag=True, context=FAST)
    role = iam.Role(stack, "Stray", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
    role.add_to_policy(iam.PolicyStatement(actions=["s3:GetObject"], resources=["*"]))
    with pytest.raises(Exception, match=r"Stray/DefaultPolicy"):
        app.synth()


def test_only_tracing_and_log_delivery_act_on_every_resource(raw: dict[str, Any]) -> None:
    allowed = {
        "xray:PutTraceSegments",
        "xray:PutTelemetryRecords",
        "xray:GetSamplingRules",
        "xray:GetSamplingTargets",
        "logs:CreateLogDelivery",
        "logs:GetLogDelivery",
        "logs:UpdateLogDelivery",
        "logs:DeleteLogDelivery",
        "logs:ListLogDeliveries",
        "logs:PutResourcePolicy",
        "logs:DescribeResourcePolicies",
        "logs:DescribeLogGroups",
    }
    for policy in raw["Resources"].values():
        if policy["Type"] != "AWS::IAM::Policy":
            continue
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            if statement.get("Resource") == "*":
                actions = statement["Action"]
                assert set(actions if isinstance(actions, list) else [actions]) <= allowed
