"""A decision run whose agents ended without a decision sends one alert naming them: the service
with a fake topic, the SNS adapter on embedded AWS (a queue subscribed to the topic reads what
an e-mail subscriber would get), and Finalize wired through the container."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import boto3
import pytest

from arena_core import entrypoints
from arena_core.adapters.sns_alerts import SnsAlerts
from arena_core.bootstrap import Container, Injected
from arena_core.domain.decision_status import DecisionStatus
from arena_core.errors import AlertError
from arena_core.ports.clock import FixedClock
from arena_core.publication.explain import SiteReport
from arena_core.services.run_alerts import (
    alert_failed_agents,
    alert_stalled_resolution,
    failed_agents,
)
from arena_core.settings import ArenaSettings
from arena_core.workflow import DecideOutput, FailureRecord, FinalizeInput
from arena_local.memory import memory_stores
from tests.support.alerts import RecordingAlerts
from tests.support.aws import embedded_aws
from tests.support.markets import StaticMarketSource

RUN_AT = datetime(2026, 3, 1, 0, 5, tzinfo=UTC)


def _ok(
    agent_id: str,
    status: DecisionStatus = DecisionStatus.SUCCEEDED,
    *,
    error: str | None = None,
    already_decided: bool = False,
) -> DecideOutput:
    return DecideOutput(
        agent_id=agent_id,
        decision_id=f"{agent_id}.w001",
        status=status,
        error=error,
        already_decided=already_decided,
    )


RESULTS: list[DecideOutput | FailureRecord] = [
    _ok("c2026-03-01.gpt-5"),
    FailureRecord(
        agent_id="c2026-03-01.kimi-k2",
        error="AttemptsExhaustedError",
        cause="3 attempts: the model never\nanswered in the format",
    ),
    _ok("c2026-03-01.grok-4", DecisionStatus.RETRYABLE_FAILURE, error="all trades failed"),
    _ok("c2026-03-01.qwen3", already_decided=True),
    FailureRecord(agent_id="c2026-03-01.claude", error="UpstreamCreditsError", cause="402"),
]


def test_one_message_names_every_agent_that_ended_without_a_decision() -> None:
    alerts = RecordingAlerts()
    named = alert_failed_agents(alerts, RESULTS, run_id="run-1", run_at=RUN_AT)
    assert named == ["c2026-03-01.claude", "c2026-03-01.grok-4", "c2026-03-01.kimi-k2"]
    ((subject, message),) = alerts.sent
    assert subject == "Forecaster Arena: 3 agent(s) failed in run run-1"
    lines = message.splitlines()
    assert (
        lines[0]
        == "Decision run run-1 of 2026-03-01 00:05 UTC: 3 agent(s) ended without a decision."
    )
    assert lines[1].startswith("By outcome: ")  # the summary (one of each here)
    assert lines[2] == "- c2026-03-01.claude: failed (UpstreamCreditsError: 402)"
    assert lines[3] == "- c2026-03-01.grok-4: retryable_failure (all trades failed)"
    assert lines[4].startswith("- c2026-03-01.kimi-k2: failed (AttemptsExhaustedError: 3 attempts")
    assert "never answered" in lines[4]  # the cause on one line


def test_a_run_where_every_agent_decided_sends_nothing() -> None:
    alerts = RecordingAlerts()
    done: list[DecideOutput | FailureRecord] = [
        r for r in RESULTS if isinstance(r, DecideOutput) and r.status is DecisionStatus.SUCCEEDED
    ]
    assert alert_failed_agents(alerts, done, run_id="run-2", run_at=RUN_AT) == []
    assert alerts.sent == []
    assert failed_agents([]) == []


def test_the_sns_adapter_publishes_to_the_topic_its_subscribers_read() -> None:
    with embedded_aws():
        sns, sqs = boto3.client("sns"), boto3.client("sqs")
        topic = sns.create_topic(Name="alarms")["TopicArn"]
        queue = sqs.create_queue(QueueName="operator")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])
        sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn["Attributes"]["QueueArn"])
        alert_failed_agents(SnsAlerts(sns, topic), RESULTS, run_id="run-3", run_at=RUN_AT)
        (received,) = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
        body = json.loads(received["Body"])
        assert body["Subject"] == "Forecaster Arena: 3 agent(s) failed in run run-3"
        assert "- c2026-03-01.kimi-k2: failed" in body["Message"]


def test_a_topic_that_refuses_is_an_alert_error() -> None:
    with embedded_aws():
        sns = boto3.client("sns")
        missing = "arn:aws:sns:us-east-1:123456789012:no-such-topic"
        with pytest.raises(AlertError, match="cannot publish the alert"):
            SnsAlerts(sns, missing).send("subject", "message")


def test_finalize_alerts_through_the_container_after_the_site(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Finalize sends the alert last (after sealing and publishing), and reports whom it named."""
    order: list[str] = []
    alerts = RecordingAlerts()
    settings = ArenaSettings(table_name="t", audit_bucket="a")
    container = Container(settings, injected=Injected(alerts=alerts))

    def publish(c: Container, *, weekly: bool = False) -> entrypoints.SnapshotResult:
        order.append("site")
        assert alerts.sent == []  # not yet
        return _snapshot_result()

    def seal(c: Container, event: FinalizeInput) -> None:
        order.append("seal")

    monkeypatch.setattr(entrypoints, "seal_run", seal)
    monkeypatch.setattr(entrypoints, "snapshot_and_publish", publish)
    event = FinalizeInput(results=RESULTS, run_at=RUN_AT, execution_id="run-4")
    result = entrypoints.finalize(container, event)
    assert order == ["seal", "site"]
    assert result.undecided == ("c2026-03-01.claude", "c2026-03-01.grok-4", "c2026-03-01.kimi-k2")
    assert [subject for subject, _ in alerts.sent] == [
        "Forecaster Arena: 3 agent(s) failed in run run-4"
    ]


def test_without_a_topic_finalize_still_reports_the_undecided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    container = Container(ArenaSettings(table_name="t", audit_bucket="a"))
    assert container.alerts is None
    monkeypatch.setattr(entrypoints, "seal_run", lambda c, event: None)
    monkeypatch.setattr(
        entrypoints, "snapshot_and_publish", lambda c, weekly=False: _snapshot_result()
    )
    result = entrypoints.finalize(container, FinalizeInput(results=RESULTS, run_at=RUN_AT))
    assert len(result.undecided) == 3


def _snapshot_result() -> entrypoints.SnapshotResult:
    return entrypoints.SnapshotResult(
        taken_at=RUN_AT, agents=0, positions=0, markets=0, requests=0, failed_market_ids=(),
        stale_positions=0, seconds=0.0, site_files=0, site_uploaded=0,
    )  # fmt: skip


def _subscribed_queue(sns: object, sqs: object) -> tuple[str, str]:
    topic = sns.create_topic(Name="alarms")["TopicArn"]  # type: ignore[attr-defined]
    queue = sqs.create_queue(QueueName="operator")["QueueUrl"]  # type: ignore[attr-defined]
    arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])  # type: ignore[attr-defined]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn["Attributes"]["QueueArn"])  # type: ignore[attr-defined]
    return topic, queue


def test_a_thousand_failing_agents_with_emoji_and_half_an_emoji_make_one_bounded_alert() -> None:
    """700 causes of emoji and one lone surrogate (half an emoji): the message was refused by
    SNS (over 256 KB) or could not be encoded (UnicodeEncodeError), on every Finalize retry."""
    results: list[DecideOutput | FailureRecord] = []
    for i in range(1_000):
        emoji = i < 700
        cause = ("\ud83d" if i == 3 else "") + ("\N{FIRE}" * 200 if emoji else "timeout " * 40)
        error = "ProviderMeltdownError" if emoji else "UpstreamTimeoutError"
        results.append(FailureRecord(agent_id=f"c2026-03-01.f{i:04d}", error=error, cause=cause))
    with embedded_aws():
        sns, sqs = boto3.client("sns"), boto3.client("sqs")
        topic, queue = _subscribed_queue(sns, sqs)
        named = alert_failed_agents(SnsAlerts(sns, topic), results, run_id="run-5", run_at=RUN_AT)
        (received,) = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    assert len(named) == 1_000  # every agent still reported to Finalize's result
    message = json.loads(received["Body"])["Message"]
    assert len(message.encode()) <= 32_000
    lines = message.splitlines()
    assert lines[0].endswith("1000 agent(s) ended without a decision.")
    assert lines[1] == (
        "By outcome: failed (ProviderMeltdownError) 700, failed (UpstreamTimeoutError) 300"
    )
    assert any(line.startswith("... and ") and "more agent(s)" in line for line in lines)
    assert "\ufffd" in message  # the half emoji, replaced


def test_the_adapter_bounds_what_sns_would_refuse() -> None:
    with embedded_aws():
        sns, sqs = boto3.client("sns"), boto3.client("sqs")
        topic, queue = _subscribed_queue(sns, sqs)
        SnsAlerts(sns, topic).send("run \ud83d\nfailed", "\N{FIRE}" * 100_000 + "\udc00")
        (received,) = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    body = json.loads(received["Body"])
    assert body["Subject"] == "run \ufffd failed"
    assert len(body["Message"].encode()) <= 250_000
    assert body["Message"].endswith("(cut: the message was too long for SNS)")


def test_a_stopped_resolution_is_alerted_every_hour_from_the_snapshot_pass() -> None:
    """Without resolutions no cohort ever completes, and nobody was told. The first snapshot
    pass of each hour reads when the last resolution ran (no alarm, no custom metric)."""
    alerts = RecordingAlerts()
    stores = memory_stores()
    container = Container(
        ArenaSettings(table_name="t", audit_bucket="a"),
        injected=Injected(stores=stores, alerts=alerts),
    )
    hour = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)
    stores.views.record_job_run("resolve", hour - timedelta(hours=2))
    entrypoints.watch_resolution(container, hour)  # two hours: not yet
    stores.views.record_job_run("resolve", hour - timedelta(hours=4))  # older: not moved back
    assert alerts.sent == []
    entrypoints.watch_resolution(container, hour + timedelta(hours=1, minutes=10))  # not :00
    assert alerts.sent == []
    entrypoints.watch_resolution(container, hour + timedelta(hours=2))  # 4 hours since
    ((subject, message),) = alerts.sent
    assert subject == "Forecaster Arena: no resolution pass for 4 hours"
    assert "Check the Resolve schedule" in message
    assert alert_stalled_resolution(alerts, None, hour) is False  # never ran: not judged


def test_the_snapshot_tick_watches_the_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    watched: list[datetime] = []
    monkeypatch.setattr(entrypoints, "watch_resolution", lambda c, now: watched.append(now))
    stores = memory_stores()
    clock = FixedClock(datetime(2026, 3, 4, 12, 0, tzinfo=UTC))
    container = Container(
        ArenaSettings(table_name="t", audit_bucket="a"),
        clock=clock,
        injected=Injected(stores=stores, market_source=StaticMarketSource([])),
    )
    published: list[object] = []

    def nothing_due(c: Container, scope: object = None, **kwargs: object) -> SiteReport:
        published.append(scope)
        return SiteReport.idle(clock.now())

    monkeypatch.setattr(entrypoints, "publish_site", nothing_due)
    entrypoints.snapshot_and_publish(container)
    assert watched == [clock.now()] and published == [None]  # then the tick's publication
