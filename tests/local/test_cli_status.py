"""``arena status``: against a "deployed" stack on embedded AWS with a failed agent, and
against a demo's output folder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import boto3
import pytest

from arena_core.adapters.dynamodb import dynamo_stores
from arena_core.adapters.s3_blobs import S3BlobStore
from arena_core.adapters.site_publishers import state_folder
from arena_core.domain.cohort import Agent
from arena_core.errors import UpstreamAuthError
from arena_core.ports.clock import FixedClock
from arena_core.services.decide import DecideRequest, DecideService
from arena_core.services.lineup import LineupService
from arena_core.services.open_cohort import OpenCohortService
from arena_core.services.snapshot import SnapshotService
from arena_core.services.weekly_run import PrepareRunService, RunRequest
from arena_local.cli import main
from arena_local.demo.main import DemoRequest, run_demo
from arena_local.status import subscriber_lines
from arena_local.status_cli import subscriptions
from tests.support.agents import ScriptedAgent
from tests.support.aws import dynamo_client, embedded_aws
from tests.support.builders import RUN_AT, WEEK0, binary
from tests.support.markets import StaticMarketSource
from tests.support.stack import create_stack, create_table

PASS = json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": True}}})
NOW = RUN_AT + timedelta(hours=2)
FAILING = "kimi-k2"


@pytest.fixture
def deployed() -> Iterator[str]:
    """A stack whose cohort ran its first decisions: one agent's model refused the key (a
    fatal error: the run's Catch records it), the others held; the run was stopped, a message
    waits in the dead-letter queue and one snapshot and one resolve ran."""
    with embedded_aws():
        table = create_table()
        s3, sfn, sqs = boto3.client("s3"), boto3.client("stepfunctions"), boto3.client("sqs")
        s3.create_bucket(Bucket="audit")
        role = "arn:aws:iam::123456789012:role/r"
        machine = sfn.create_state_machine(name="d", definition=PASS, roleArn=role)
        queue = sqs.create_queue(QueueName="dead-letters")["QueueUrl"]
        sqs.send_message(QueueUrl=queue, MessageBody="{}")
        topic = boto3.client("sns").create_topic(Name="alarms")["TopicArn"]  # no subscriber
        outputs = {
            "TableName": table,
            "StateMachineArn": machine["stateMachineArn"],
            "DeadLetterQueueUrl": queue,
            "SiteUrl": "https://d123.cloudfront.net",
            "AlarmTopicArn": topic,
        }
        create_stack(outputs)
        stores = dynamo_stores(dynamo_client(), table)
        clock = FixedClock(WEEK0)
        lineups = LineupService(stores.lineups, clock)
        OpenCohortService(stores.cohorts, clock, lineups, include_baselines=False).open()
        clock.set(RUN_AT)
        blobs = S3BlobStore(s3, "audit")
        source = StaticMarketSource([binary("m1", "0.40")])
        prepared = PrepareRunService(stores, source, blobs, clock).prepare(RunRequest())
        execution = sfn.start_execution(
            stateMachineArn=machine["stateMachineArn"], name="run-week-1"
        )
        for item in prepared.items:
            fails = Agent.family_of(item.agent_id) == FAILING
            reply = UpstreamAuthError("401") if fails else json.dumps({"action": "HOLD"})
            request = DecideRequest(item.agent_id, item.run_at, item.universe_ref, "o")
            try:
                DecideService(stores, blobs, clock).decide(request, ScriptedAgent(reply))
            except UpstreamAuthError:
                assert fails
        sfn.stop_execution(executionArn=execution["executionArn"])
        clock.set(RUN_AT + timedelta(minutes=5))
        SnapshotService(stores, source, clock).run()
        stores.views.record_job_run("snapshot", clock.now())
        stores.views.record_job_run("resolve", RUN_AT + timedelta(minutes=55))
        yield table


def test_status_of_a_deployment_with_a_failed_agent(
    deployed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["status"], now=NOW) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "Last snapshot: 2026-03-01 00:10 UTC; last resolve: 2026-03-01 01:00 UTC" in lines
    assert any(line.startswith("Last decision run: 2026-03-01 00:05 UTC") for line in lines)
    decisions = {
        line.split()[0]: line.split()[-1] for line in lines if line.startswith("  c2026-03-01.")
    }
    assert decisions.pop(f"c2026-03-01.{FAILING}") == "failed"
    assert set(decisions.values()) == {"succeeded"} and len(decisions) == 6
    assert "Active cohorts: 1" in lines
    assert out.count("$10,000.00 (+0.00%)") == 7  # every agent's latest snapshot
    assert "Failed executions in the last 7 days: 1" in lines
    assert any("run-week-1: ABORTED" in line for line in lines)
    assert "Messages in the dead-letter queue: 1" in lines
    assert lines[-2].startswith("WARNING: no confirmed subscription to the alarm topic")
    assert "-c arena:alarmEmail=" in lines[-2]
    assert lines[-1] == "Site: https://d123.cloudfront.net"


def test_status_names_the_confirmed_subscriptions(
    deployed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    sns = boto3.client("sns")
    (topic,) = [
        t["TopicArn"] for t in sns.list_topics()["Topics"] if t["TopicArn"].endswith(":alarms")
    ]
    sns.subscribe(TopicArn=topic, Protocol="email", Endpoint="ops@example.com")
    assert main(["status"], now=NOW) == 0
    assert "Alerts: 1 confirmed subscription(s) to the alarm topic" in capsys.readouterr().out


class PendingTopic:
    """SNS as it answers before the e-mail is confirmed (moto confirms at once)."""

    def list_subscriptions_by_topic(self, **kwargs: str) -> dict[str, object]:
        if "NextToken" not in kwargs:
            return {"Subscriptions": [{"SubscriptionArn": "PendingConfirmation"}], "NextToken": "2"}
        return {"Subscriptions": [{"SubscriptionArn": "PendingConfirmation"}]}


def test_a_subscription_still_pending_is_no_subscriber() -> None:
    assert subscriptions(PendingTopic(), "arn:aws:sns:us-east-1:1:alarms") == (0, 2)
    (line,) = subscriber_lines((0, 2))
    assert line.startswith("WARNING: no confirmed subscription") and "2 pending" in line


def test_status_of_a_demo_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Given a one-week demo of the baselines (a pass an hour: what status reads, in a sixth of
    # the deployed passes' time)
    out = tmp_path / "site"
    request = DemoRequest(weeks=1, agents=("baselines",), offline=True, out=out, pass_minutes=60)
    run_demo(request, stream=None)
    capsys.readouterr()
    ledger = json.loads((state_folder(out) / "ledger.json").read_text())
    # When its status is asked for
    assert main(["status", "--dir", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # Then it says what the ledger and the site say
    expected = {
        d["agent_id"]: "fallback" if d["fallback"] else d["status"] for d in ledger["decisions"]
    }
    rows = [line.split() for line in lines if line.startswith("  c")]
    shown = {row[0]: row[-1] for row in rows if "." in row[0]}  # agent ids, not cohort ids
    assert shown == expected
    cohorts = json.loads((out / "data" / "cohorts.json").read_text())
    active = sum(c["status"] == "active" for c in cohorts)
    assert f"Active cohorts: {active}" in lines
    assert any(line.startswith("Last snapshot: ") and "never" not in line for line in lines)
    assert "Messages in the dead-letter queue: 0" in lines
    assert f"Site: {out.resolve()}" in lines
    # And what the site's last publications did, and why: the closing one last, first listed
    published = lines[lines.index(f"Site: {out.resolve()}") + 1 :]
    assert published[0].startswith("Last publications: ")
    assert "weekly (after the weekly decision run): " in published[1]
    assert any(line.startswith("    uploaded ") for line in published)
    assert main(["status", "--dir", str(tmp_path)]) == 2  # no demo output there
