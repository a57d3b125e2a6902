"""The deployment's cost lines: Lambda (model.py) and every other service, per month."""

from __future__ import annotations

from typing import Any

from arena_core.constants import Metric
from arena_local.cost.meter import Usage
from arena_local.cost.model import (
    PER_AGENT,
    PUBLISHED_BY,
    WEEKS_PER_MONTH,
    Line,
    Measured,
    invocations,
    lambda_lines,
    publications,
    resources,
    schedules,
)
from arena_local.cost.totals import growth

GB = 1e9


def _monthly(measured: Measured, cohorts: int, counts: dict[str, float]) -> dict[str, Usage]:
    """Each function's measured usage per invocation × its invocations per month (each
    publication scope at the deployed rate); per-agent work × ``cohorts``."""
    per_month: dict[str, Usage] = {}
    for name, usage in measured.usage.items():
        calls = counts.get(name, usage.invocations / measured.weeks * WEEKS_PER_MONTH)
        factor = calls / max(usage.invocations, 1)
        # Per-agent work grows with the cohorts (Decide's calls already count every cohort).
        scale = factor * (cohorts if name in PER_AGENT else 1)
        monthly = Usage(invocations=round(calls))
        monthly.read_units = usage.read_units * scale
        monthly.write_units = usage.write_units * scale + usage.shared_write_units * factor
        for key, value in usage.requests.items():
            monthly.requests[key] = round(value * scale)
        monthly.site_uploads = round(usage.site_uploads * factor)
        monthly.log_bytes = round(usage.log_bytes * factor)
        monthly.prompt_bytes, monthly.prompts = usage.prompt_bytes, usage.prompts
        for bucket, size in usage.put_bytes.items():
            monthly.put_bytes[bucket] = round(size * scale)
        per_month[name] = monthly
    return per_month


def _requests(usage: dict[str, Usage], *names: str) -> float:
    return float(sum(u.requests[n] for u in usage.values() for n in names))


def all_lines(
    template: dict[str, Any],
    measured: Measured,
    prices: dict[str, Any],
    *,
    cohorts: int = 5,
    ttl_days: int = 30,
) -> list[Line]:
    lines, lambda_calls = lambda_lines(template, measured, prices, cohorts)
    counts = invocations(template, measured, cohorts)
    counts |= publications(template, counts)
    usage = _monthly(measured, cohorts, counts)
    p, assumed = prices, prices["assumptions"]
    months = assumed["months_of_history"]
    table = growth(measured, cohorts, ttl_days).stored_after(months * 52 / 12, ttl=True) / GB
    runs = schedules(template).get("workflow", 0.0)
    # A run enters Prepare, the Map, Finalize and its end, and per item the iteration and
    # its Decide task: each entry is one billed transition.
    transitions = 4 * runs + 2 * counts.get("Decide", 0.0)
    audit = sum(u.put_bytes.get(measured.audit_bucket, 0) for u in usage.values())
    published = sum(counts.get(p, 0.0) for p in PUBLISHED_BY)
    site_puts = sum(u.site_uploads for u in usage.values()) + published  # + the manifest
    logs = (
        sum(u.log_bytes for u in usage.values())
        + lambda_calls * assumed["log_bytes_per_invocation"]
    )
    lines += [
        Line(
            "Step Functions",
            "state transitions",
            transitions,
            "transitions",
            p["stepfunctions_transition"],
            "stepfunctions_transitions",
        ),
        Line(
            "Scheduler",
            "invocations",
            sum(schedules(template).values()),
            "invocations",
            p["scheduler_invocation"],
            "scheduler_invocations",
        ),
        Line(
            "DynamoDB",
            "write request units",
            sum(u.write_units for u in usage.values()),
            "WRU",
            p["dynamodb_write_unit"],
        ),
        Line(
            "DynamoDB",
            "read request units",
            sum(u.read_units for u in usage.values()),
            "RRU",
            p["dynamodb_read_unit"],
        ),
        Line(
            "DynamoDB",
            f"storage after {months} months (TTL on)",
            table,
            "GB-month",
            p["dynamodb_gb_month"],
            "dynamodb_storage_gb",
        ),
        Line("DynamoDB", "point-in-time recovery", table, "GB-month", p["dynamodb_pitr_gb_month"]),
        Line(
            "S3",
            "PUT/LIST requests",
            _requests(usage, "s3:PutObject", "s3:ListObjectsV2") + site_puts,
            "requests",
            p["s3_put_request"],
        ),
        Line(
            "S3",
            "GET requests",
            _requests(usage, "s3:GetObject", "s3:HeadObject") + published,
            "requests",
            p["s3_get_request"],
        ),
        Line(
            "S3",
            f"storage after {months} months",
            (audit * months + measured.site_bytes) / GB,
            "GB-month",
            p["s3_standard_gb_month"],
        ),
        Line(
            "CloudFront",
            "HTTPS requests (assumed)",
            assumed["site_requests_per_month"],
            "requests",
            p["cloudfront_https_request"],
            "cloudfront_requests",
        ),
        Line(
            "CloudWatch",
            "logs ingested",
            logs / GB,
            "GB",
            p["cloudwatch_logs_ingested_gb"],
            "cloudwatch_logs_gb",
        ),
        Line(
            "CloudWatch",
            "logs stored (90 days)",
            3 * logs / GB,
            "GB-month",
            p["cloudwatch_logs_stored_gb_month"],
        ),
        Line(
            "CloudWatch",
            "custom metrics (EMF)",
            len(Metric),
            "metrics",
            p["cloudwatch_metric_month"],
            "cloudwatch_metrics",
        ),
        Line(
            "CloudWatch",
            "alarms",
            len(resources(template, "AWS::CloudWatch::Alarm")),
            "alarms",
            p["cloudwatch_alarm_month"],
            "cloudwatch_alarms",
        ),
        Line(
            "CloudWatch",
            "dashboards",
            len(resources(template, "AWS::CloudWatch::Dashboard")),
            "dashboards",
            p["cloudwatch_dashboard_month"],
            "cloudwatch_dashboards",
        ),
        Line(
            "X-Ray",
            "traces (active tracing)",
            lambda_calls + runs,
            "traces",
            p["xray_trace"],
            "xray_traces",
        ),
        Line(
            "SSM",
            "OpenRouter key reads (standard SecureString)",
            counts.get("Decide", 0.0),
            "calls",
            p["ssm_standard_api_call"],
        ),
        Line(
            "Secrets Manager",
            "secrets",
            len(resources(template, "AWS::SecretsManager::Secret")),
            "secrets",
            p["secretsmanager_secret_month"],
        ),
        Line(
            "SQS",
            "dead-letter queue requests",
            _requests(usage, "sqs:SendMessage"),
            "requests",
            p["sqs_request"],
            "sqs_requests",
        ),
    ]
    return lines
