"""cdk-nag acknowledgments: each names the finding exactly and gives the reason it is accepted.

Everything else the AwsSolutions pack asks for is built in (PITR, encryption, SSL-only buckets
and queues, access logs, state machine logging and X-Ray, function tracing, CloudFront logging).
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, Stack, Validations

from infra.constructs.grants import (
    BOOKKEEPING,
    COMMITMENTS,
    COMMITTED_DECISIONS,
    COMMITTED_RUNS,
    DECISIONS,
    PANELS,
    UNIVERSES,
)

BASIC_EXECUTION = "arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
RULES: dict[str, str] = {
    f"AwsSolutions::AwsSolutions-IAM4[Policy::{BASIC_EXECUTION}]": (
        "The AWS managed basic execution policy only lets a function write its own CloudWatch "
        "logs; a hand-written copy would grant the same and drift from AWS's updates."
    ),
    "AwsSolutions::AwsSolutions-L1": (
        "Python 3.12 is pinned on purpose: the layer's .pyc files are compiled for 3.12 with "
        "unchecked-hash invalidation and the cold-start budget was measured on it; moving runtime "
        "is a deliberate change with its own measurement."
    ),
    "AwsSolutions::AwsSolutions-SQS3": (
        "This queue is itself the dead-letter queue of the schedules and the scheduled "
        "functions' on-failure destination; it is alarmed on depth."
    ),
    "AwsSolutions::AwsSolutions-CFR1": (
        "A public research leaderboard is meant to be readable from every country."
    ),
    "AwsSolutions::AwsSolutions-CFR2": (
        "The distribution serves a static, read-only site from a private bucket through origin "
        "access control: no forms, no API, no origin to protect; WAF would add only cost."
    ),
    "AwsSolutions::AwsSolutions-CFR4": (
        "The site uses the default *.cloudfront.net certificate, whose TLS policy CloudFront "
        "fixes; set a custom domain and certificate with TLSv1.2_2021 to raise it."
    ),
}


def wildcard_resources(stack: Stack) -> dict[str, str]:
    """Findings whose ids contain logical ids: object-level S3 access by key pattern, versions."""
    found: dict[str, str] = {}
    resolve = stack.get_logical_id
    storage = stack.node.find_child("Storage")

    def arn(bucket: str) -> str:
        found = storage.node.find_child(bucket)
        resource = found.node.default_child
        if resource is None:  # a retained bucket the stack adopted, by name
            return f"arn:<AWS::Partition>:s3:::{found.bucket_name}"  # type: ignore[attr-defined]
        return f"<{resolve(resource)}.Arn>"  # type: ignore[arg-type]

    found[f"AwsSolutions::AwsSolutions-IAM5[Resource::{arn('Site')}/*]"] = (
        "The publishers (Snapshot, Finalize) PutObject the static site's pages and "
        "exports, whose keys grow with cohorts and agents; they are granted no delete or bucket "
        "administration."
    )
    found[f"AwsSolutions::AwsSolutions-IAM5[Resource::{arn('Site')}/{BOOKKEEPING}]"] = (
        "The publishers read back their own bookkeeping: the root (lease, manifest index, "
        "state), the manifest's parts, the memo's shards and each sealed cohort's record "
        "(_internal/sealed/<id>...): keys grow with cohorts, so the _internal/ prefix (never "
        "served: the distribution is denied it) is the narrowest pattern. No file published "
        "for readers is read back."
    )
    found[f"AwsSolutions::AwsSolutions-IAM5[Resource::{arn('Audit')}/{UNIVERSES}]"] = (
        "Prepare reads and writes, and Decide reads, the weekly market universe, one object per "
        "week (universes/week-<date>.json): the prefix is the narrowest pattern that names it."
    )
    found[f"AwsSolutions::AwsSolutions-IAM5[Resource::{arn('Audit')}/{PANELS}]"] = (
        "Under methodology v1+panel, Prepare draws (writes) and reads back, and Decide reads, the "
        "week's forecast panel, one object per week (panels/week-<date>.json): the prefix is "
        "the narrowest pattern that names it."
    )
    found[f"AwsSolutions::AwsSolutions-IAM5[Resource::{arn('Audit')}/{DECISIONS}]"] = (
        "Decide writes, and the publishers read, each decision's prompt and raw replies under "
        "decisions/<decision id>/claim-<n>/: ids are made at run time, so the prefix is the "
        "narrowest pattern; the publishers cannot write it and nothing can delete."
    )
    found[f"AwsSolutions::AwsSolutions-IAM5[Resource::{arn('Site')}/{COMMITTED_DECISIONS}]"] = (
        "Decide writes each decision's commitment once, at commitments/decisions/<decision "
        "id>/<its sha256>.json: ids and hashes are made at run time, so the prefix is the "
        "narrowest pattern; the bucket policy refuses any overwrite or delete there."
    )
    found[f"AwsSolutions::AwsSolutions-IAM5[Resource::{arn('Site')}/{COMMITTED_RUNS}]"] = (
        "Finalize writes each decision run's Merkle root once, at commitments/runs/<run time>-"
        "<execution>.json: names are made at run time, so the prefix is the narrowest pattern."
    )
    found[f"AwsSolutions::AwsSolutions-IAM5[Resource::{arn('Site')}/{COMMITMENTS}]"] = (
        "Finalize reads back the committed objects its log does not list yet (a decision whose "
        "line could not be appended): public objects, read only."
    )
    functions = stack.node.find_child("Functions")
    for child in functions.node.children:
        if (
            child.node.default_child is not None
            and child.node.id not in ("",)
            and hasattr(child, "function_arn")
        ):
            logical = resolve(child.node.default_child)  # type: ignore[arg-type]
            found[f"AwsSolutions::AwsSolutions-IAM5[Resource::<{logical}.Arn>:*]"] = (
                "Invoking the function's versions and aliases (CDK grants the function ARN with "
                "':*'); the grant names one function."
            )
    return found


ANY_RESOURCE = "AwsSolutions::AwsSolutions-IAM5[Resource::*]"
# The only policies granted an action on every resource ('*'), and which actions: each is
# acknowledged on that policy alone, so a '*' anywhere else fails synth.
ANY_RESOURCE_POLICIES: dict[str, tuple[str, ...]] = {
    **{
        f"Functions/{name}/ServiceRole/DefaultPolicy": ("xray:PutTraceSegments",)
        for name in ("OpenCohort", "Prepare", "Decide", "Finalize", "Snapshot", "Resolve")
    },
    "Workflow/StateMachine/Role/DefaultPolicy": ("xray:PutTraceSegments", "logs:CreateLogDelivery"),
}
ANY_RESOURCE_REASON = (
    "X-Ray PutTraceSegments/PutTelemetryRecords/GetSampling* (active tracing) and, for the "
    "state machine, the CloudWatch Logs delivery actions of Step Functions logging have no "
    "resource-level permissions: AWS requires '*'. Acknowledged on this policy alone."
)


def acknowledge(stack: Stack) -> None:
    for rule_id, reason in {**RULES, **wildcard_resources(stack)}.items():
        Validations.of(stack).acknowledge(Acknowledgment(id=rule_id, reason=reason))
    logs = stack.node.find_child("Storage").node.find_child("AccessLogs")
    Validations.of(logs).acknowledge(
        Acknowledgment(
            id="AwsSolutions::AwsSolutions-S1",
            reason="The access-log bucket itself: the buckets' and CloudFront's logs land here "
            "(cdk-nag sees that only while this stack's own buckets log to it; with retained "
            "buckets adopted they keep logging where they did).",
        )
    )
    for path in ANY_RESOURCE_POLICIES:
        policy = stack.node.find_child(path.split("/")[0])
        for part in path.split("/")[1:]:
            policy = policy.node.find_child(part)
        acknowledgment = Acknowledgment(id=ANY_RESOURCE, reason=ANY_RESOURCE_REASON)
        Validations.of(policy).acknowledge(acknowledgment)
