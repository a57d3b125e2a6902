"""What an operator does against a deployed stack from a terminal: find the stack's outputs,
rerun a decision week, export the public dataset. Each takes the boto3 clients it needs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

from arena_core.errors import ConfigurationError, NotFoundError, PersistenceError

DATA_PREFIX = "data/"
REQUIRED_OUTPUTS = ("StateMachineArn", "SiteBucket", "TableName")


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
    try:
        stacks = cloudformation.describe_stacks(StackName=stack_name)["Stacks"]
    except NoCredentialsError as exc:
        raise ConfigurationError(
            "no AWS credentials: configure a profile or set AWS_PROFILE / AWS_ACCESS_KEY_ID"
        ) from exc
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") == "ValidationError":
            raise NotFoundError(f"no stack named {stack_name} in this account/region") from exc
        raise PersistenceError(f"describe_stacks failed: {exc}") from exc
    except BotoCoreError as exc:
        raise PersistenceError(f"describe_stacks failed: {exc}") from exc
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}
    return StackOutputs(stack_name, outputs)


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
    try:
        started = stepfunctions.start_execution(
            stateMachineArn=state_machine_arn, input=json.dumps(payload)
        )
    except NoCredentialsError as exc:
        raise ConfigurationError("no AWS credentials") from exc
    except (ClientError, BotoCoreError) as exc:
        raise PersistenceError(f"start_execution failed: {exc}") from exc
    arn: str = started["executionArn"]
    return arn


def export_dataset(s3: Any, site_bucket: str, out: Path) -> list[Path]:
    """Copy the published dataset (the site's ``data/`` files) into ``out/data``."""
    written = []
    try:
        pages = s3.get_paginator("list_objects_v2").paginate(Bucket=site_bucket, Prefix=DATA_PREFIX)
        for page in pages:
            for entry in page.get("Contents", []):
                key = str(entry["Key"])
                target = (out / key).resolve()
                if not target.is_relative_to(out.resolve()):
                    continue  # a hostile key cannot write outside the folder
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(s3.get_object(Bucket=site_bucket, Key=key)["Body"].read())
                written.append(target)
    except NoCredentialsError as exc:
        raise ConfigurationError("no AWS credentials") from exc
    except (ClientError, BotoCoreError) as exc:
        raise PersistenceError(f"reading s3://{site_bucket}/{DATA_PREFIX} failed: {exc}") from exc
    if not written:
        raise NotFoundError(f"nothing published under s3://{site_bucket}/{DATA_PREFIX} yet")
    return written
