"""What an operator does against a deployed stack from a terminal: find the stack's outputs,
rerun a decision week, export the public dataset. Each takes the boto3 clients it needs.

Every failure an operator can cause or fix (no region, no credentials, a week that cannot be
rerun, a file in the way of the export) becomes an ``ArenaError``, which the CLI prints as one
line; nothing here lets a library exception escape as a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, NoRegionError

from arena_core.domain.cohort import date_in_calendar, week_start_for
from arena_core.errors import (
    ConfigurationError,
    InvalidIdError,
    NotFoundError,
    PersistenceError,
)
from arena_core.ports.publisher import site_key
from arena_core.ports.stores import Stores

DATA_PREFIX = "data/"
NO_CREDENTIALS = "no AWS credentials: configure a profile or set AWS_PROFILE / AWS_ACCESS_KEY_ID"
NO_REGION = "no AWS region configured: set AWS_DEFAULT_REGION or a region in your AWS profile"


@contextmanager
def aws_errors(action: str) -> Iterator[None]:
    """Translate what boto3 raises during ``action`` into the arena's errors.

    A missing region or missing credentials is the operator's setup (``ConfigurationError``);
    anything else AWS answers is a failure of the deployed stores (``PersistenceError``).
    ``NoRegionError`` and ``NoCredentialsError`` are ``BotoCoreError``s, so they come first.
    """
    try:
        yield
    except NoCredentialsError as exc:
        raise ConfigurationError(NO_CREDENTIALS) from exc
    except NoRegionError as exc:
        raise ConfigurationError(NO_REGION) from exc
    except (ClientError, BotoCoreError) as exc:
        raise PersistenceError(f"{action} failed: {exc}") from exc


def clients(*services: str) -> list[Any]:
    """boto3 clients from the default session; most services need a region already here."""
    with aws_errors("creating AWS clients"):
        return [boto3.client(s) for s in services]  # type: ignore[call-overload]


@dataclass(frozen=True)
class StackOutputs:
    stack_name: str
    values: dict[str, str]

    def get(self, key: str) -> str:
        try:
            return self.values[key]
        except KeyError as exc:
            raise NotFoundError(f"stack {self.stack_name} has no output {key}") from exc


def stack_outputs(cloudformation: Any, stack_name: str) -> StackOutputs:
    with aws_errors("describe_stacks"):
        try:
            stacks = cloudformation.describe_stacks(StackName=stack_name)["Stacks"]
        except ClientError as exc:
            # CloudFormation reports an unknown stack as a ValidationError, nothing more specific.
            if exc.response.get("Error", {}).get("Code") == "ValidationError":
                raise NotFoundError(f"no stack named {stack_name} in this account/region") from exc
            raise
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}
    return StackOutputs(stack_name, outputs)


def stack_stores(stack_name: str) -> tuple[Stores, StackOutputs]:
    """The deployed table's stores (found through the stack's outputs), and the outputs."""
    from arena_core.adapters.dynamodb import dynamo_stores  # noqa: PLC0415

    cloudformation, dynamodb = clients("cloudformation", "dynamodb")
    outputs = stack_outputs(cloudformation, stack_name)
    return dynamo_stores(dynamodb, outputs.get("TableName")), outputs


def check_rerun_week(week: date, today: date) -> None:
    """A rerun replays a week that has begun, named by its Sunday (``today`` is UTC).

    The workflow would quietly move another day to its Sunday, and would run a future week at
    once: every active agent would get an extra decision now, its trades stamped in that week.
    A date outside the arena's calendar (0001-01-01, 9999-12-31) is refused first.
    """
    date_in_calendar(week, "--week")
    sunday = week_start_for(datetime(week.year, week.month, week.day, tzinfo=UTC)).date()
    if sunday > today:
        current = week_start_for(datetime(today.year, today.month, today.day, tzinfo=UTC))
        raise ConfigurationError(
            f"the week of {week} has not started yet: the latest week to rerun is the current one, "
            f"{current:%Y-%m-%d} (today is {today}, UTC)"
        )
    if week != sunday:
        raise ConfigurationError(
            f"{week} is a {week:%A}; weeks start on Sunday: did you mean {sunday}?"
        )


def rerun_input(
    week: date, agent_ids: list[str] | None, max_concurrency: int | None
) -> dict[str, Any]:
    """The state machine input for one week (optionally some agents), as the console takes."""
    payload: dict[str, Any] = {"week_start": week.isoformat()}
    if agent_ids:
        payload["agent_ids"] = agent_ids
    if max_concurrency is not None:
        payload["max_concurrency"] = max_concurrency
    return payload


def start_rerun(stepfunctions: Any, state_machine_arn: str, payload: dict[str, Any]) -> str:
    """Start the decision workflow; reruns never trade twice (claims are per agent-week)."""
    with aws_errors("start_execution"):
        started = stepfunctions.start_execution(
            stateMachineArn=state_machine_arn, input=json.dumps(payload)
        )
    arn: str = started["executionArn"]
    return arn


def export_dataset(s3: Any, site_bucket: str, out: Path) -> list[Path]:
    """Copy the published dataset (the site's ``data/`` files) into ``out/data``."""
    written = []
    with aws_errors(f"reading s3://{site_bucket}/{DATA_PREFIX}"):
        pages = s3.get_paginator("list_objects_v2").paginate(Bucket=site_bucket, Prefix=DATA_PREFIX)
        for page in pages:
            for entry in page.get("Contents", []):
                key = str(entry["Key"])
                try:  # a NUL, a '..' or an absolute key is no path to write
                    target = (out / site_key(key)).resolve()
                except InvalidIdError:
                    continue
                if not target.is_relative_to(out.resolve()):
                    continue  # a hostile key (or a symlink) cannot write outside the folder
                body = s3.get_object(Bucket=site_bucket, Key=key)["Body"].read()
                _write(target, body, f"s3://{site_bucket}/{key}")
                written.append(target)
    if not written:
        raise NotFoundError(f"nothing published under s3://{site_bucket}/{DATA_PREFIX} yet")
    return written


def _write(target: Path, body: bytes, source: str) -> None:
    """Write one object's body, naming the object when the local file system refuses."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        # S3 keys are not paths: "data/a" and "data/a/b.csv" can both exist, a file and a folder
        # cannot. These three are how the file system says so, depending on which came first.
        if isinstance(exc, FileExistsError | NotADirectoryError | IsADirectoryError):
            reason += " (a file and a folder would need the same path)"
        raise PersistenceError(f"cannot write {source} to {target}: {reason}") from exc
