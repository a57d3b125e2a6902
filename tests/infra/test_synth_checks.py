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
