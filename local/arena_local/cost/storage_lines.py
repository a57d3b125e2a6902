"""DynamoDB's and S3's lines: request units and requests per month, and what is stored after a
year (the table as billed, the site, the audit records, the logs, the replaced pages)."""

from __future__ import annotations

from typing import Any

from arena_local.cost.model import Line, monthly, requests
from arena_local.cost.steady import Measured
from arena_local.cost.totals import storage_after, table_after

GB = 1e9


def dynamodb_lines(measured: Measured, prices: dict[str, Any], n: dict[str, float]) -> list[Line]:
    months = prices["assumptions"]["months_of_history"]
    stored = storage_after(measured, months * 52 / 12) / GB
    return [
        Line(
            "DynamoDB",
            "write request units",
            monthly(measured.usage, n, "write_units"),
            "WRU",
            prices["dynamodb_write_unit"],
        ),
        Line(
            "DynamoDB",
            "read request units",
            monthly(measured.usage, n, "read_units"),
            "RRU",
            prices["dynamodb_read_unit"],
        ),
        Line(
            "DynamoDB",
            f"storage after {months} months (items, overhead, indexes)",
            stored,
            "GB-month",
            prices["dynamodb_gb_month"],
            "dynamodb_storage_gb",
        ),
        Line(
            "DynamoDB",
            "point-in-time recovery (table size)",
            table_after(measured, months * 52 / 12) / GB,
            "GB-month",
            prices["dynamodb_pitr_gb_month"],
        ),
    ]


def s3_lines(measured: Measured, prices: dict[str, Any], n: dict[str, float]) -> list[Line]:
    assumed = prices["assumptions"]
    months = assumed["months_of_history"]
    site_requests = assumed["site_requests_per_month"]
    puts = requests(measured.usage, n, "s3:PutObject", "s3:ListObjectsV2") + monthly(
        measured.usage, n, "site_uploads"
    )
    gets = requests(measured.usage, n, "s3:GetObject", "s3:HeadObject") + monthly(
        measured.usage, n, "site_reads"
    )
    origin = site_requests * assumed["cloudfront_miss_ratio"]
    audit_week = sum(u.put_bytes.get(measured.audit_bucket, 0) for u in measured.usage.values())
    site = measured.site_bytes + measured.steady.history_weeks * measured.cohort_site_bytes
    logged = (puts + gets + origin) * assumed["access_log_bytes_per_request"]
    logged += site_requests * assumed["cloudfront_log_bytes_per_request"]
    stored = (audit_week * 52 * months / 12 + site + 3 * logged) / GB
    noncurrent = (
        monthly(measured.usage, n, "site_upload_bytes") * assumed["noncurrent_days"] / 30.44 / GB
    )
    return [
        Line("S3", "PUT/LIST requests", puts, "requests", prices["s3_put_request"]),
        Line(
            "S3",
            "GET requests (with CloudFront's, assumed)",
            gets + origin,
            "requests",
            prices["s3_get_request"],
        ),
        Line(
            "S3",
            f"storage after {months} months (site, audit, 90 days of logs)",
            stored,
            "GB-month",
            prices["s3_standard_gb_month"],
        ),
        Line(
            "S3",
            "noncurrent versions of replaced pages",
            noncurrent,
            "GB-month",
            prices["s3_standard_gb_month"],
        ),
    ]
