"""``arena rerun`` and ``arena export`` against a "deployed" stack on embedded AWS."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import boto3
import pytest

from arena_core.errors import NotFoundError
from arena_local import operations
from arena_local.cli import main
from tests.support.aws import embedded_aws

PASS_MACHINE = json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": True}}})


@pytest.fixture
def deployed() -> Iterator[dict[str, Any]]:
    """A stack named ForecasterArena whose outputs name a state machine and a site bucket."""
    with embedded_aws():
        sfn = boto3.client("stepfunctions")
        machine = sfn.create_state_machine(
            name="decisions", definition=PASS_MACHINE, roleArn="arn:aws:iam::123456789012:role/r"
        )["stateMachineArn"]
        s3 = boto3.client("s3")
        s3.create_bucket(Bucket="site-bucket")
        template = {
            "Resources": {"Topic": {"Type": "AWS::SNS::Topic"}},
            "Outputs": {
                "StateMachineArn": {"Value": machine},
                "SiteBucket": {"Value": "site-bucket"},
                "TableName": {"Value": "table"},
            },
        }
        boto3.client("cloudformation").create_stack(
            StackName="ForecasterArena", TemplateBody=json.dumps(template)
        )
        yield {"machine": machine, "sfn": sfn, "s3": s3}


def test_rerun_starts_the_workflow_for_one_week_and_agent(
    deployed: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["rerun", "--week", "2026-03-01", "--agent", "c2026-03-01.kimi-k2"]
    assert main([*argv, "--max-concurrency", "1"]) == 0
    (execution,) = deployed["sfn"].list_executions(stateMachineArn=deployed["machine"])[
        "executions"
    ]
    described = deployed["sfn"].describe_execution(executionArn=execution["executionArn"])
    assert json.loads(described["input"]) == {
        "week_start": "2026-03-01",
        "agent_ids": ["c2026-03-01.kimi-k2"],
        "max_concurrency": 1,
    }
    assert execution["executionArn"] in capsys.readouterr().out


def test_export_copies_the_published_dataset(deployed: dict[str, Any], tmp_path: Path) -> None:
    s3 = deployed["s3"]
    s3.put_object(Bucket="site-bucket", Key="data/leaderboard.csv", Body=b"rank,family_id\n")
    s3.put_object(Bucket="site-bucket", Key="data/cohorts/c1/trades.json", Body=b"[]")
    s3.put_object(Bucket="site-bucket", Key="index.html", Body=b"<html>")
    s3.put_object(Bucket="site-bucket", Key="data/../../escape.txt", Body=b"no")
    assert main(["export", "--out", str(tmp_path / "out")]) == 0
    written = sorted(p.relative_to(tmp_path / "out") for p in (tmp_path / "out").rglob("*.*"))
    assert written == [Path("data/cohorts/c1/trades.json"), Path("data/leaderboard.csv")]
    assert not (tmp_path / "escape.txt").exists()


def test_a_missing_stack_or_output_is_named(deployed: dict[str, Any]) -> None:
    cloudformation = boto3.client("cloudformation")
    with pytest.raises(NotFoundError, match="no stack named Elsewhere"):
        operations.stack_outputs(cloudformation, "Elsewhere")
    outputs = operations.stack_outputs(cloudformation, "ForecasterArena")
    with pytest.raises(NotFoundError, match="no output Missing"):
        outputs.get("Missing")
    assert main(["export", "--out", "unused", "--stack", "Elsewhere"]) == 2


def test_rerun_accepts_the_current_week_and_all_agents_at_once(
    deployed: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["rerun", "--week", "2026-03-08", "--max-concurrency", "0"]
    assert main(argv, today=date(2026, 3, 8)) == 0  # its Sunday: the week has begun
    (execution,) = deployed["sfn"].list_executions(stateMachineArn=deployed["machine"])[
        "executions"
    ]
    described = deployed["sfn"].describe_execution(executionArn=execution["executionArn"])
    assert json.loads(described["input"]) == {"week_start": "2026-03-08", "max_concurrency": 0}


def test_export_names_a_key_that_collides_with_a_folder(
    deployed: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # data/a is written as a file, so the folder data/a/ for the next key cannot exist.
    deployed["s3"].put_object(Bucket="site-bucket", Key="data/a", Body=b"file")
    deployed["s3"].put_object(Bucket="site-bucket", Key="data/a/b.csv", Body=b"x\n")
    assert main(["export", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena export: ")
    assert err.count("\n") == 1
    assert "s3://site-bucket/data/a/b.csv" in err
    assert str(tmp_path / "out" / "data" / "a" / "b.csv") in err


def test_export_into_a_regular_file_names_the_first_key(
    deployed: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deployed["s3"].put_object(Bucket="site-bucket", Key="data/leaderboard.csv", Body=b"rank\n")
    (tmp_path / "out").write_text("a file, not a folder")
    assert main(["export", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "s3://site-bucket/data/leaderboard.csv" in err
