"""``arena status [--dir DIR]``: the deployed stack's status, or a demo output's."""

from __future__ import annotations

import argparse
import errno
import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from arena_core.adapters.site_publishers import S3SitePublisher, state_folder
from arena_core.errors import ConfigurationError
from arena_local import operations
from arena_local.publications import last_publications
from arena_local.status import STATUS_FILE, Execution, Status, collect, render


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser], stack: str) -> None:
    status = commands.add_parser("status", help="cohorts, runs, failures and the site at a glance")
    status.add_argument(
        "--dir",
        type=Path,
        help="a demo's output folder (./site; its status is in ./site.state) instead",
    )
    status.add_argument("--stack", default=stack)


def run(args: argparse.Namespace, now: datetime | None = None) -> int:
    status = _from_dir(args.dir) if args.dir else _deployed(args.stack, now or datetime.now(UTC))
    for line in render(status):
        print(line)
    return 0


MAX_STATUS_BYTES = 1024 * 1024  # a demo's status.json is a few kilobytes


def _from_dir(site: Path) -> Status:
    """The status a demo left in its state folder, beside the site (``site.state``)."""
    folder = state_folder(site)
    path = folder / STATUS_FILE
    try:
        return Status.model_validate_json(read_regular(path, MAX_STATUS_BYTES))
    except FileNotFoundError as exc:
        raise ConfigurationError(f"no {STATUS_FILE} in {folder}: run `arena demo` first") from exc
    except OSError as exc:
        raise ConfigurationError(f"{path} is unreadable: {exc.strerror or exc}") from exc
    except ValidationError as exc:
        raise ConfigurationError(f"{path} is not a status: {exc.error_count()} errors") from exc


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path`` if it is a regular file of its folder, at most ``limit`` of them.

    Opened without following a link and without blocking, then checked on the open file: a
    link (to /dev/zero, or to a file outside the folder), a FIFO or a device is refused
    before a byte is read, and a file that grows past ``limit`` is refused too."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW on a link
            raise OSError(errno.ELOOP, "a link, not a file of the folder") from exc
        raise
    with os.fdopen(descriptor, "rb") as file:
        found = os.fstat(file.fileno())
        if not stat.S_ISREG(found.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if found.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes")
        body = file.read(limit + 1)
    if len(body) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit} bytes")
    return body


def _deployed(stack: str, now: datetime) -> Status:
    stores, outputs = operations.stack_stores(stack)
    stepfunctions, sqs, s3 = operations.clients("stepfunctions", "sqs", "s3")
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
    site = outputs.values.get("SiteBucket")
    published = last_publications(S3SitePublisher(s3, site)) if site else ()
    url = outputs.values.get("SiteUrl")
    status = collect(stores, now, executions, letters, url, publications=published)
    topic = outputs.values.get("AlarmTopicArn")
    if topic is None:
        return status
    (sns,) = operations.clients("sns")
    return status.model_copy(update={"subscribers": subscriptions(sns, topic)})


PENDING = frozenset({"PendingConfirmation", "Deleted"})  # SNS's SubscriptionArn until confirmed


def subscriptions(sns: Any, topic_arn: str) -> tuple[int, int]:
    """Confirmed and pending subscriptions to the alarm topic."""
    confirmed = pending = 0
    token: str | None = None
    while True:
        with operations.aws_errors("list_subscriptions_by_topic"):
            page = sns.list_subscriptions_by_topic(
                TopicArn=topic_arn, **({"NextToken": token} if token else {})
            )
        for found in page.get("Subscriptions", []):
            if found.get("SubscriptionArn") in PENDING:
                pending += 1
            else:
                confirmed += 1
        token = page.get("NextToken")
        if not token:
            return confirmed, pending


def _execution(listed: dict[str, Any]) -> Execution:
    return Execution(name=listed["name"], status=listed["status"], started=listed["startDate"])
