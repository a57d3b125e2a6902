"""Every other service's lines: CloudWatch (logs, metrics by cadence, alarms as alarm metrics,
dashboards), EventBridge, SNS, X-Ray, Step Functions, Scheduler, CloudFront, KMS, SSM,
Secrets Manager and SQS."""

from __future__ import annotations

from typing import Any

from arena_local.cost.meter import Usage
from arena_local.cost.model import (
    HOURS_PER_MONTH,
    Line,
    functions,
    monthly,
    requests,
    resources,
    schedules,
)
from arena_local.cost.steady import Measured
from arena_local.cost.totals import alarm_metrics

GB = 1e9


def monitoring_lines(
    template: dict[str, Any], measured: Measured, prices: dict[str, Any], n: dict[str, float]
) -> list[Line]:
    assumed = prices["assumptions"]
    invocations = sum(n[name] for name in functions(template))
    transitions = n["Prepare"] * 3 + n["Decide"]  # Prepare, Map, Finalize; each Decide attempt
    logs = (
        monthly(measured.usage, n, "log_bytes") + invocations * assumed["log_bytes_per_invocation"]
    )
    logs += transitions * assumed["stepfunctions_log_bytes_per_transition"]
    return [
        Line(
            "CloudWatch",
            "logs ingested",
            logs / GB,
            "GB",
            prices["cloudwatch_logs_ingested_gb"],
            "cloudwatch_logs_gb",
        ),
        Line(
            "CloudWatch",
            "logs stored (90 days)",
            3 * logs / GB,
            "GB-month",
            prices["cloudwatch_logs_stored_gb_month"],
        ),
        Line(
            "CloudWatch",
            "custom metrics, by emitting cadence",
            metric_months(measured.usage, n),
            "metric-months",
            prices["cloudwatch_metric_month"],
            "cloudwatch_metrics",
        ),
        Line(
            "CloudWatch",
            "alarms, as alarm metrics",
            alarm_metrics(template),
            "alarm-metrics",
            prices["cloudwatch_alarm_month"],
            "cloudwatch_alarms",
        ),
        Line(
            "CloudWatch",
            "dashboards",
            len(resources(template, "AWS::CloudWatch::Dashboard")),
            "dashboards",
            prices["cloudwatch_dashboard_month"],
            "cloudwatch_dashboards",
        ),
        Line(
            "EventBridge",
            "failed-run rule (AWS service events)",
            len(resources(template, "AWS::Events::Rule")),
            "rules",
            0.0,
        ),
        Line(
            "SNS",
            "alerts published and e-mailed (assumed)",
            assumed["alerts_per_month"],
            "messages",
            prices["sns_publish"] + prices["sns_email"],
            "sns_messages",
        ),
        # One trace per scheduled invocation: a run's Prepare, Decides and Finalize share it.
        Line(
            "X-Ray",
            "traces (active tracing)",
            sum(schedules(template).values()),
            "traces",
            prices["xray_trace"],
            "xray_traces",
        ),
        Line(
            "Step Functions",
            "state transitions",
            transitions,
            "transitions",
            prices["stepfunctions_transition"],
            "stepfunctions_transitions",
        ),
        Line(
            "Scheduler",
            "invocations",
            sum(schedules(template).values()),
            "invocations",
            prices["scheduler_invocation"],
            "scheduler_invocations",
        ),
    ]


def metric_months(usage: dict[str, Usage], n: dict[str, float]) -> float:
    """Custom metrics as CloudWatch bills them: per metric-hour (an hour in which the metric
    received a data point), 730 to a metric-month. Each metric gets the cadence of the function
    emitting it: the share of its invocations that emitted it, each in an hour of its own up to
    every hour of the month (a 10-minute function emitting on every pass: 730 hours)."""
    hours = 0.0
    for name, used in usage.items():
        for emitted in used.metrics.values():
            share = emitted / max(used.invocations, 1)
            hours += min(HOURS_PER_MONTH, n.get(name, 0.0) * share)
    return hours / HOURS_PER_MONTH


def other_lines(
    template: dict[str, Any], measured: Measured, prices: dict[str, Any], n: dict[str, float]
) -> list[Line]:
    assumed = prices["assumptions"]
    return [
        Line(
            "CloudFront",
            "HTTPS requests (assumed)",
            assumed["site_requests_per_month"],
            "requests",
            prices["cloudfront_https_request"],
            "cloudfront_requests",
        ),
        Line(
            "KMS",
            "requests (the key's SecureString, decrypted per Decide)",
            requests(measured.usage, n, "ssm:GetParameter") or n["Decide"],
            "requests",
            prices["kms_request"],
            "kms_requests",
        ),
        Line(
            "SSM",
            "OpenRouter key reads (standard SecureString)",
            n["Decide"],
            "calls",
            prices["ssm_standard_api_call"],
        ),
        Line(
            "Secrets Manager",
            "secrets",
            len(resources(template, "AWS::SecretsManager::Secret")),
            "secrets",
            prices["secretsmanager_secret_month"],
        ),
        Line(
            "SQS",
            "dead-letter queue requests",
            requests(measured.usage, n, "sqs:SendMessage"),
            "requests",
            prices["sqs_request"],
            "sqs_requests",
        ),
    ]
