"""Cross-service rules a real AWS account enforces and no emulator does, read off a template.

moto, cfn-lint and cdk-nag all accept a stack whose alarms can never notify anyone: the alarm
topic encrypted with the AWS managed key ``alias/aws/sns`` (whose key policy cannot let
CloudWatch use it), a scheduled function whose failures go nowhere. Each rule here reads the
synthesized template and returns findings, one sentence each naming the resource; no finding
means the rule holds. ``tests/infra/test_account_rules.py`` runs every rule on the app's
template and on broken variants of it; ``python -m infra.validate`` (``make synth``) runs them too.

The rules:
- a topic that an alarm or an EventBridge rule publishes to accepts that service: its policy
  allows the service principal to publish, and it is unencrypted or encrypted with a key of
  the template whose policy lets the service use it (an AWS managed key never can);
- every function invoked asynchronously (a schedule's or a rule's target) has a failure
  destination (or a dead-letter queue) its role may send to;
- every encrypted resource a service writes to (log delivery to a bucket, CloudFront reading
  the site) is encrypted so that service may use the key: S3-managed keys, or a key of the
  template whose policy grants it; S3 server access logs accept only S3-managed keys;
- Object Lock only on versioned buckets;
- CloudFront reaches each S3 origin through origin access control that the bucket's policy
  allows, for that distribution;
- every schedule has a role the scheduler may assume, allowed to invoke its target and to
  send to its dead-letter queue, which it has.

"Allows" is IAM's verdict (``iam_eval.permitted``) on the request the account would see: the
publishing service with its source (``aws:SourceArn``, ``aws:SourceAccount``) and TLS, on the
resource's ARN. An explicit Deny, a condition the request does not meet, or a statement on
another resource is a finding, as it would be a refusal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from infra.iam_eval import ACCOUNT, Request, arn, permitted, resolved

Template = dict[str, Any]
Rule = Callable[[Template], list[str]]

CLOUDWATCH = "cloudwatch.amazonaws.com"
EVENTS = "events.amazonaws.com"
SCHEDULER = "scheduler.amazonaws.com"
CLOUDFRONT = "cloudfront.amazonaws.com"
S3_LOGGING = "logging.s3.amazonaws.com"
KEY_USE = ("kms:Decrypt", "kms:GenerateDataKey")


# --- reading the template ---------------------------------------------------------------------


def of_type(template: Template, kind: str) -> dict[str, Any]:
    return {k: v for k, v in template["Resources"].items() if v["Type"] == kind}


def props(template: Template, logical_id: str) -> dict[str, Any]:
    properties: dict[str, Any] = template["Resources"][logical_id].get("Properties", {})
    return properties


def refs(value: Any) -> set[str]:
    """Every logical id a value points at (Ref, Fn::GetAtt, anywhere inside it)."""
    found: set[str] = set()
    if isinstance(value, list):
        for item in value:
            found |= refs(item)
    elif isinstance(value, dict):
        if "Ref" in value and isinstance(value["Ref"], str):
            found.add(value["Ref"])
        if "Fn::GetAtt" in value:
            found.add(str(value["Fn::GetAtt"][0]))
        for item in value.values():
            found |= refs(item)
    return found


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


TLS = {"aws:SecureTransport": "true"}


def service_request(
    template: Template, service: str, action: str, target: str, source: str | None = None
) -> Request:
    """A service acting on ``target`` (a logical id) for ``source`` (the alarm, rule, bucket
    or distribution on whose behalf it acts), over TLS, in this account."""
    context = {**TLS, "aws:SourceAccount": ACCOUNT}
    if source is not None:
        context["aws:SourceArn"] = source_arn(template, source)
    return Request(action, arn(template, target), principal=service, context=context)


def source_arn(template: Template, logical_id: str) -> str:
    """The ARN a service presents as ``aws:SourceArn`` for a resource of the template."""
    if template["Resources"][logical_id]["Type"] == "AWS::CloudFront::Distribution":
        return f"arn:aws:cloudfront::{ACCOUNT}:distribution/{logical_id}"
    return arn(template, logical_id)


def policy_permits(template: Template, statements: list[Any], request: Request) -> bool:
    return permitted(resolved(statements, template), request)


def role_statements(template: Template, role: str) -> Iterator[dict[str, Any]]:
    """Every statement of a role: its inline policies and the policies attached to it."""
    for policy in of_type(template, "AWS::IAM::Policy").values():
        if role in refs(policy["Properties"].get("Roles", [])):
            yield from policy["Properties"]["PolicyDocument"]["Statement"]
    for inline in props(template, role).get("Policies", []):
        yield from inline["PolicyDocument"]["Statement"]


def role_allows(template: Template, role: str, action: str, target: str) -> bool:
    """Whether the role's own policies let it ``action`` on ``target`` (a logical id)."""
    request = Request(action, arn(template, target), context=TLS)
    return policy_permits(template, list(role_statements(template, role)), request)


def resource_policy(template: Template, kind: str, key: str, logical_id: str) -> list[Any]:
    """The statements of the resource policies (``kind``) attached to ``logical_id`` through
    their ``key`` property (``Topics``, ``Queues``, ``Bucket``)."""
    found = []
    for policy in of_type(template, kind).values():
        if logical_id in refs(policy["Properties"].get(key)):
            found += policy["Properties"]["PolicyDocument"]["Statement"]
    return found


def key_allows(template: Template, key: Any, service: str, source: str | None = None) -> str | None:
    """Why ``service`` cannot use the KMS key ``key`` (None when it can): the key must be one
    of the template's own keys (an AWS managed key's policy cannot be edited), whose policy
    lets the service principal decrypt and generate data keys (for ``source``)."""
    keys = refs(key) & set(of_type(template, "AWS::KMS::Key"))
    if not keys:
        managed = re.search(r"alias/aws/[a-z0-9-]+", json.dumps(key))
        shown = f"the AWS managed key {managed[0]}" if managed else f"key {key!r}"
        return f"{shown}, whose policy this stack cannot edit to let {service} use it"
    (logical_id,) = keys
    statements = props(template, logical_id).get("KeyPolicy", {}).get("Statement", [])
    for action in KEY_USE:
        request = service_request(template, service, action, logical_id, source)
        if not policy_permits(template, statements, request):
            return f"key {logical_id}, whose policy does not allow {service} {action}"
    return None


# --- the rules --------------------------------------------------------------------------------


def _topic_publishers(template: Template) -> Iterator[tuple[str, str, str, str]]:
    """(topic, publishing service, what publishes, its logical id) for every alarm action
    and rule target."""
    topics = set(of_type(template, "AWS::SNS::Topic"))
    for alarm_id, alarm in of_type(template, "AWS::CloudWatch::Alarm").items():
        p = alarm["Properties"]
        actions = p.get("AlarmActions", []) + p.get("OKActions", [])
        for topic in refs(actions + p.get("InsufficientDataActions", [])) & topics:
            yield topic, CLOUDWATCH, f"alarm {alarm_id}", alarm_id
    for rule_id, rule in of_type(template, "AWS::Events::Rule").items():
        for target in rule["Properties"].get("Targets", []):
            for topic in refs(target["Arn"]) & topics:
                yield topic, EVENTS, f"rule {rule_id}", rule_id


def topics_accept_their_publishers(template: Template) -> list[str]:
    findings = []
    for topic, service, source, source_id in sorted(set(_topic_publishers(template))):
        statements = resource_policy(template, "AWS::SNS::TopicPolicy", "Topics", topic)
        request = service_request(template, service, "sns:Publish", topic, source_id)
        # Without a topic policy the default one lets the account's principals publish, but
        # not EventBridge; with one (CDK writes one for enforceSSL), only what it allows.
        if (statements or service == EVENTS) and not policy_permits(template, statements, request):
            findings.append(
                f"{source} publishes to topic {topic}, whose policy does not allow {service}"
            )
        key = props(template, topic).get("KmsMasterKeyId")
        if key is not None:
            reason = key_allows(template, key, service, source_id)
            if reason:
                findings.append(f"{source} publishes to topic {topic}, encrypted with {reason}")
    return findings


def _async_invoked(template: Template) -> dict[str, str]:
    """Functions invoked asynchronously, with what invokes them: schedules and rules."""
    functions = set(of_type(template, "AWS::Lambda::Function"))
    found = {}
    for schedule_id, schedule in of_type(template, "AWS::Scheduler::Schedule").items():
        for function in refs(schedule["Properties"]["Target"]["Arn"]) & functions:
            found[function] = f"schedule {schedule_id}"
    for rule_id, rule in of_type(template, "AWS::Events::Rule").items():
        for target in rule["Properties"].get("Targets", []):
            for function in refs(target["Arn"]) & functions:
                found[function] = f"rule {rule_id}"
    return found


def _send_action(template: Template, destination: str) -> str:
    kind = template["Resources"][destination]["Type"]
    return {
        "AWS::SQS::Queue": "sqs:SendMessage",
        "AWS::SNS::Topic": "sns:Publish",
        "AWS::Lambda::Function": "lambda:InvokeFunction",
        "AWS::Events::EventBus": "events:PutEvents",
    }.get(kind, "?")


def async_functions_have_failure_destinations(template: Template) -> list[str]:
    configs = of_type(template, "AWS::Lambda::EventInvokeConfig").values()
    findings = []
    for function, invoker in sorted(_async_invoked(template).items()):
        p = props(template, function)
        destinations = set(refs(p.get("DeadLetterConfig", {}).get("TargetArn")))
        for config in configs:
            if function in refs(config["Properties"]["FunctionName"]):
                failure = config["Properties"].get("DestinationConfig", {}).get("OnFailure", {})
                destinations |= refs(failure.get("Destination"))
        destinations &= set(template["Resources"])
        if not destinations:
            findings.append(
                f"function {function} ({invoker} invokes it asynchronously) has no failure "
                "destination: an error after Lambda's retries would reach no one"
            )
        role = next(iter(refs(p.get("Role"))), "")
        for destination in sorted(destinations):
            action = _send_action(template, destination)
            if not role_allows(template, role, action, destination):
                findings.append(f"function {function} may not {action} to {destination}")
    return findings


def _bucket_key(template: Template, bucket: str) -> Any | None:
    """The KMS key of a bucket's default encryption (None for S3-managed keys)."""
    rules = (
        props(template, bucket)
        .get("BucketEncryption", {})
        .get("ServerSideEncryptionConfiguration", [])
    )
    for rule in rules:
        default = rule.get("ServerSideEncryptionByDefault", {})
        if str(default.get("SSEAlgorithm", "")).startswith("aws:kms"):
            return default.get("KMSMasterKeyID", "alias/aws/s3")
    return None


def _log_buckets(template: Template) -> dict[str, str]:
    """Buckets a service delivers logs to, with what delivers them."""
    buckets = set(of_type(template, "AWS::S3::Bucket"))
    found = {}
    for bucket_id, bucket in of_type(template, "AWS::S3::Bucket").items():
        target = bucket["Properties"].get("LoggingConfiguration", {}).get("DestinationBucketName")
        for logs in refs(target) & buckets:
            found[logs] = f"S3 server access logs of {bucket_id}"
    for dist_id, dist in of_type(template, "AWS::CloudFront::Distribution").items():
        logging = dist["Properties"]["DistributionConfig"].get("Logging", {})
        for logs in refs(logging.get("Bucket")) & buckets:
            found.setdefault(logs, f"CloudFront standard logs of {dist_id}")
    return found


def encrypted_resources_allow_their_writers(template: Template) -> list[str]:
    findings = []
    for bucket, writer in sorted(_log_buckets(template).items()):
        if _bucket_key(template, bucket) is not None:
            findings.append(
                f"bucket {bucket} receives {writer} but is encrypted with KMS: log delivery "
                "writes only to buckets with S3-managed keys (SSE-S3)"
            )
    for group_id, group in of_type(template, "AWS::Logs::LogGroup").items():
        key = group["Properties"].get("KmsKeyId")
        if key is not None:
            reason = key_allows(template, key, "logs.amazonaws.com")
            if reason:
                findings.append(f"log group {group_id} is encrypted with {reason}")
    for queue_id, queue in of_type(template, "AWS::SQS::Queue").items():
        key = queue["Properties"].get("KmsMasterKeyId")
        if key is not None and "alias/aws/sqs" not in str(key):
            for service in (SCHEDULER, EVENTS):
                reason = key_allows(template, key, service)
                if reason and _service_sends_to(template, service, queue_id):
                    findings.append(f"queue {queue_id} is encrypted with {reason}")
    return findings


def _service_sends_to(template: Template, service: str, queue: str) -> bool:
    if service == SCHEDULER:
        schedules = of_type(template, "AWS::Scheduler::Schedule").values()
        return any(
            queue in refs(s["Properties"]["Target"].get("DeadLetterConfig")) for s in schedules
        )
    rules = of_type(template, "AWS::Events::Rule").values()
    return any(queue in refs(r["Properties"].get("Targets")) for r in rules)


def object_lock_only_with_versioning(template: Template) -> list[str]:
    findings = []
    for bucket_id, bucket in of_type(template, "AWS::S3::Bucket").items():
        p = bucket["Properties"]
        versioned = p.get("VersioningConfiguration", {}).get("Status") == "Enabled"
        if p.get("ObjectLockEnabled") and not versioned:
            findings.append(f"bucket {bucket_id} enables Object Lock without versioning")
    return findings


def cloudfront_reaches_its_origins(template: Template) -> list[str]:
    findings = []
    buckets = set(of_type(template, "AWS::S3::Bucket"))
    for dist_id, dist in of_type(template, "AWS::CloudFront::Distribution").items():
        for origin in dist["Properties"]["DistributionConfig"].get("Origins", []):
            for bucket in refs(origin.get("DomainName")) & buckets:
                if not origin.get("OriginAccessControlId"):
                    findings.append(
                        f"{dist_id} reads bucket {bucket} without origin access control"
                    )
                statements = resource_policy(template, "AWS::S3::BucketPolicy", "Bucket", bucket)
                page = service_request(template, CLOUDFRONT, "s3:GetObject", bucket, dist_id)
                page = replace(page, resource=f"{page.resource}/index.html")
                if not policy_permits(template, statements, page):
                    findings.append(
                        f"bucket {bucket}'s policy does not let {dist_id} (CloudFront, by its "
                        "distribution ARN) read its objects"
                    )
                key = _bucket_key(template, bucket)
                reason = key_allows(template, key, CLOUDFRONT) if key is not None else None
                if reason:
                    findings.append(f"{dist_id} reads bucket {bucket}, encrypted with {reason}")
    return findings


def schedules_have_a_role_and_a_dead_letter_queue(template: Template) -> list[str]:
    findings = []
    roles = set(of_type(template, "AWS::IAM::Role"))
    for schedule_id, schedule in of_type(template, "AWS::Scheduler::Schedule").items():
        target = schedule["Properties"]["Target"]
        role = next(iter(refs(target.get("RoleArn")) & roles), None)
        if role is None:
            findings.append(f"schedule {schedule_id} has no role of this template")
            continue
        trust = props(template, role).get("AssumeRolePolicyDocument", {}).get("Statement", [])
        assume = service_request(template, SCHEDULER, "sts:AssumeRole", role, schedule_id)
        if not policy_permits(template, trust, assume):
            findings.append(f"schedule {schedule_id}: the scheduler may not assume role {role}")
        for invoked in refs(target["Arn"]) & set(template["Resources"]):
            action = {
                "AWS::Lambda::Function": "lambda:InvokeFunction",
                "AWS::StepFunctions::StateMachine": "states:StartExecution",
            }.get(template["Resources"][invoked]["Type"], "?")
            if not role_allows(template, role, action, invoked):
                findings.append(f"schedule {schedule_id}: role {role} may not {action} {invoked}")
        queues = refs(target.get("DeadLetterConfig", {}).get("Arn")) & set(template["Resources"])
        if not queues:
            findings.append(f"schedule {schedule_id} has no dead-letter queue")
        for queue in queues:
            if not role_allows(template, role, "sqs:SendMessage", queue):
                findings.append(f"schedule {schedule_id}: role {role} may not send to {queue}")
    return findings


RULES: dict[str, Rule] = {
    "topics accept their publishers": topics_accept_their_publishers,
    "asynchronous functions have failure destinations": async_functions_have_failure_destinations,
    "encrypted resources allow their writers": encrypted_resources_allow_their_writers,
    "Object Lock only with versioning": object_lock_only_with_versioning,
    "CloudFront reaches its origins": cloudfront_reaches_its_origins,
    "schedules have a role and a dead-letter queue": schedules_have_a_role_and_a_dead_letter_queue,
}


def findings(template: Template) -> list[str]:
    """Every rule's findings, each prefixed with its rule."""
    return [f"{name}: {finding}" for name, rule in RULES.items() for finding in rule(template)]
