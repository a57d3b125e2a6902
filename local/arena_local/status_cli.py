"""``arena status [--dir DIR]``: the deployed stack's status, or a demo output's."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from arena_core.errors import ConfigurationError
from arena_local import operations
from arena_local.status import STATUS_FILE, Execution, Status, collect, render


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser], stack: str) -> None:
    status = commands.add_parser("status", help="cohorts, runs, failures and the site at a glance")
    status.add_argument("--dir", type=Path, help="a demo's output folder (./site) instead")
    status.add_argument("--stack", default=stack)


def run(args: argparse.Namespace, now: datetime | None = None) -> int:
    status = _from_dir(args.dir) if args.dir else _deployed(args.stack, now or datetime.now(UTC))
    for line in render(status):
        print(line)
    return 0


def _from_dir(folder: Path) -> Status:
    path = folder / STATUS_FILE
    try:
        return Status.model_validate_json(path.read_bytes())
    except FileNotFoundError as exc:
        raise ConfigurationError(f"no {STATUS_FILE} in {folder}: run `arena demo` first") from exc
    except (OSError, ValidationError) as exc:
        raise ConfigurationError(f"{path} is unreadable: {exc}") from exc


def _deployed(stack: str, now: datetime) -> Status:
    stores, outputs = operations.stack_stores(stack)
    stepfunctions, sqs = operations.clients("stepfunctions", "sqs")
    with operations.aws_errors("list_executions"):
        listed = stepfunctions.list_executions(
            stateMachineArn=outputs.get("StateMachineArn"), maxResults=100
        )["executions"]
    with operations.aws_errors("get_queue_attributes"):
        attributes = sqs.get_queue_attributes(
            QueueUrl=outputs.get("DeadLetterQueueUrl"),
            AttributeNames=["ApproximateNumberOfMessages"],
        )["Attributes"]
    executions = [_execution(e) for e in listed]
    letters = int(attributes["ApproximateNumberOfMessages"])
    return collect(stores, now, executions, letters, outputs.values.get("SiteUrl"))


def _execution(listed: dict[str, Any]) -> Execution:
    return Execution(name=listed["name"], status=listed["status"], started=listed["startDate"])
