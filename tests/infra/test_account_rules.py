"""The cross-service rules a real account enforces (``infra/account_rules.py``), on the app's
synthesized template, and on variants of it broken the way a real account would refuse: each
rule must find the slip, or the next one would ship silently (emulators accept all of them)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from infra import account_rules
from infra.account_rules import RULES, findings, of_type

Mutation = Callable[[dict[str, Any]], None]


def _one(raw: dict[str, Any], kind: str, prefix: str = "") -> str:
    (found,) = [k for k in of_type(raw, kind) if k.startswith(prefix)]
    return found


def _broken(raw: dict[str, Any], mutate: Mutation) -> dict[str, Any]:
    template = copy.deepcopy(raw)
    mutate(template)
    return template


@pytest.mark.parametrize("rule", list(RULES))
def test_the_app_keeps_every_rule(raw: dict[str, Any], rule: str) -> None:
    assert RULES[rule](raw) == []


# --- the alarm topic ------------------------------------------------------------------------

MANAGED_SNS_KEY = {
    "Fn::Join": [
        "",
        ["arn:", {"Ref": "AWS::Partition"}, ":kms:", {"Ref": "AWS::Region"}, ":",
         {"Ref": "AWS::AccountId"}, ":alias/aws/sns"],
    ]
}  # fmt: skip


def _managed_key(template: dict[str, Any]) -> None:
    """The topic as it was before (main at f8e0e6c): under the AWS managed key."""
    topic = _one(template, "AWS::SNS::Topic")
    template["Resources"][topic].setdefault("Properties", {})["KmsMasterKeyId"] = MANAGED_SNS_KEY


def _policy_statements(template: dict[str, Any]) -> list[dict[str, Any]]:
    policy = _one(template, "AWS::SNS::TopicPolicy")
    statements: list[dict[str, Any]] = template["Resources"][policy]["Properties"][
        "PolicyDocument"
    ]["Statement"]
    return statements


def _drop_publisher(service: str) -> Mutation:
    def mutate(template: dict[str, Any]) -> None:
        statements = _policy_statements(template)
        statements[:] = [s for s in statements if service not in str(s.get("Principal"))]

    return mutate


def test_a_topic_under_the_aws_managed_key_fails_every_alarm_and_the_rule(
    raw: dict[str, Any],
) -> None:
    found = account_rules.topics_accept_their_publishers(_broken(raw, _managed_key))
    alarms = of_type(raw, "AWS::CloudWatch::Alarm")
    assert len(found) == len(alarms) + 1  # each alarm, and the failed-run rule
    assert all("the AWS managed key alias/aws/sns" in f for f in found)
    assert sum("cloudwatch.amazonaws.com" in f for f in found) == len(alarms)
    assert sum("events.amazonaws.com" in f for f in found) == 1


@pytest.mark.parametrize("service", ["cloudwatch.amazonaws.com", "events.amazonaws.com"])
def test_a_topic_policy_without_the_publisher_fails(raw: dict[str, Any], service: str) -> None:
    found = account_rules.topics_accept_their_publishers(_broken(raw, _drop_publisher(service)))
    assert found and all(f"whose policy does not allow {service}" in f for f in found)


def _customer_key(grants: tuple[str, ...]) -> Mutation:
    def mutate(template: dict[str, Any]) -> None:
        statements = [
            {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::1:root"}, "Action": "kms:*"}
        ] + [
            {
                "Effect": "Allow",
                "Principal": {"Service": service},
                "Action": ["kms:Decrypt", "kms:GenerateDataKey*"],
                "Resource": "*",
            }
            for service in grants
        ]
        template["Resources"]["AlarmKey"] = {
            "Type": "AWS::KMS::Key",
            "Properties": {"KeyPolicy": {"Statement": statements}},
        }
        topic = _one(template, "AWS::SNS::Topic")
        key = {"Fn::GetAtt": ["AlarmKey", "Arn"]}
        template["Resources"][topic].setdefault("Properties", {})["KmsMasterKeyId"] = key

    return mutate


def test_a_customer_managed_key_must_grant_both_publishers(raw: dict[str, Any]) -> None:
    both = ("cloudwatch.amazonaws.com", "events.amazonaws.com")
    assert account_rules.topics_accept_their_publishers(_broken(raw, _customer_key(both))) == []
    found = account_rules.topics_accept_their_publishers(
        _broken(raw, _customer_key(("cloudwatch.amazonaws.com",)))
    )
    assert found == [
        f"rule {_one(raw, 'AWS::Events::Rule')} publishes to topic "
        f"{_one(raw, 'AWS::SNS::Topic')}, encrypted with key AlarmKey, whose policy does not "
        "allow events.amazonaws.com kms:Decrypt"
    ]


# --- asynchronous invocations ---------------------------------------------------------------


def _no_failure_destination(template: dict[str, Any]) -> None:
    for logical_id in of_type(template, "AWS::Lambda::EventInvokeConfig"):
        del template["Resources"][logical_id]


def test_every_scheduled_function_needs_a_failure_destination(raw: dict[str, Any]) -> None:
    found = account_rules.async_functions_have_failure_destinations(
        _broken(raw, _no_failure_destination)
    )
    assert sorted(f.split()[1][: -len("ABCD1234")] for f in found) == [
        "FunctionsOpenCohort",
        "FunctionsResolve",
        "FunctionsSnapshot",
    ]


def test_a_failure_destination_the_function_may_not_send_to_is_a_finding(
    raw: dict[str, Any],
) -> None:
    queue = _one(raw, "AWS::SQS::Queue")

    def mutate(template: dict[str, Any]) -> None:
        for policy in of_type(template, "AWS::IAM::Policy").values():
            statements = policy["Properties"]["PolicyDocument"]["Statement"]
            statements[:] = [s for s in statements if queue not in str(s["Resource"])]

    found = account_rules.async_functions_have_failure_destinations(_broken(raw, mutate))
    assert len(found) == 3 and all(f"may not sqs:SendMessage to {queue}" in f for f in found)


# --- encryption, Object Lock, CloudFront, schedules -------------------------------------------


def _kms(bucket_prefix: str) -> Mutation:
    def mutate(template: dict[str, Any]) -> None:
        bucket = _one(template, "AWS::S3::Bucket", bucket_prefix)
        template["Resources"][bucket]["Properties"]["BucketEncryption"] = {
            "ServerSideEncryptionConfiguration": [
                {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms"}}
            ]
        }

    return mutate


def test_log_buckets_must_keep_s3_managed_keys(raw: dict[str, Any]) -> None:
    found = account_rules.encrypted_resources_allow_their_writers(
        _broken(raw, _kms("StorageAccessLogs"))
    )
    assert (
        len(found) == 1 and "log delivery writes only to buckets with S3-managed keys" in found[0]
    )


def test_cloudfront_cannot_read_a_site_under_the_aws_managed_s3_key(raw: dict[str, Any]) -> None:
    found = account_rules.cloudfront_reaches_its_origins(_broken(raw, _kms("StorageSite")))
    assert len(found) == 1 and "the AWS managed key alias/aws/s3" in found[0]


def test_cloudfront_needs_the_buckets_policy_for_its_distribution(raw: dict[str, Any]) -> None:
    def mutate(template: dict[str, Any]) -> None:
        for policy in of_type(template, "AWS::S3::BucketPolicy").values():
            statements = policy["Properties"]["PolicyDocument"]["Statement"]
            statements[:] = [s for s in statements if "cloudfront" not in str(s.get("Principal"))]

    found = account_rules.cloudfront_reaches_its_origins(_broken(raw, mutate))
    assert len(found) == 1 and "does not let" in found[0]


def test_object_lock_needs_versioning(raw: dict[str, Any]) -> None:
    def mutate(template: dict[str, Any]) -> None:
        audit = _one(template, "AWS::S3::Bucket", "StorageAudit")
        del template["Resources"][audit]["Properties"]["VersioningConfiguration"]

    found = account_rules.object_lock_only_with_versioning(_broken(raw, mutate))
    audit = _one(raw, "AWS::S3::Bucket", "StorageAudit")
    assert found == [f"bucket {audit} enables Object Lock without versioning"]


def test_schedules_need_their_dead_letter_queue_and_a_role_allowed_to_use_it(
    raw: dict[str, Any],
) -> None:
    def no_queue(template: dict[str, Any]) -> None:
        for schedule in of_type(template, "AWS::Scheduler::Schedule").values():
            del schedule["Properties"]["Target"]["DeadLetterConfig"]

    found = account_rules.schedules_have_a_role_and_a_dead_letter_queue(_broken(raw, no_queue))
    assert len(found) == 4 and all("has no dead-letter queue" in f for f in found)
    role = _one(raw, "AWS::IAM::Role", "SchedulesRole")

    def untrusted(template: dict[str, Any]) -> None:
        trust = template["Resources"][role]["Properties"]["AssumeRolePolicyDocument"]
        trust["Statement"][0]["Principal"] = {"Service": "lambda.amazonaws.com"}

    found = account_rules.schedules_have_a_role_and_a_dead_letter_queue(_broken(raw, untrusted))
    assert len(found) == 4 and all("the scheduler may not assume role" in f for f in found)


def test_findings_name_their_rule(raw: dict[str, Any]) -> None:
    found = findings(_broken(raw, _managed_key))
    assert found and all(f.startswith("topics accept their publishers: ") for f in found)


# --- statements read as IAM reads them: Deny, Condition, Resource ------------------------------
# Each break below kept an Allow statement in place: reading Allow statements alone, the rules
# passed all five, and a real account would refuse every one.


def _add_topic_statement(statement: dict[str, Any]) -> Mutation:
    def mutate(template: dict[str, Any]) -> None:
        _policy_statements(template).append(statement)

    return mutate


def _only_events_statement(change: dict[str, Any]) -> Mutation:
    def mutate(template: dict[str, Any]) -> None:
        for statement in _policy_statements(template):
            if "events.amazonaws.com" in str(statement.get("Principal")):
                statement.update(change)

    return mutate


def test_an_explicit_deny_on_the_topic_refuses_the_failed_run_rule(raw: dict[str, Any]) -> None:
    deny = {
        "Effect": "Deny",
        "Principal": {"Service": "events.amazonaws.com"},
        "Action": "sns:Publish",
        "Resource": "*",
    }
    found = account_rules.topics_accept_their_publishers(_broken(raw, _add_topic_statement(deny)))
    assert found == [
        f"rule {_one(raw, 'AWS::Events::Rule')} publishes to topic "
        f"{_one(raw, 'AWS::SNS::Topic')}, whose policy does not allow events.amazonaws.com"
    ]


def test_an_allow_for_another_rule_is_no_allow_for_this_one(raw: dict[str, Any]) -> None:
    other = {"Fn::GetAtt": ["SomeOtherRule", "Arn"]}
    condition = {"Condition": {"ArnEquals": {"aws:SourceArn": other}}}
    found = account_rules.topics_accept_their_publishers(
        _broken(raw, _only_events_statement(condition))
    )
    assert len(found) == 1 and "does not allow events.amazonaws.com" in found[0]


def test_an_allow_on_another_topic_is_no_allow_for_the_alarms(raw: dict[str, Any]) -> None:
    def mutate(template: dict[str, Any]) -> None:
        for statement in _policy_statements(template):
            if "cloudwatch.amazonaws.com" in str(statement.get("Principal")):
                statement["Resource"] = "arn:aws:sns:us-east-1:123456789012:another-topic"

    found = account_rules.topics_accept_their_publishers(_broken(raw, mutate))
    alarms = of_type(raw, "AWS::CloudWatch::Alarm")
    assert len(found) == len(alarms)
    assert all("does not allow cloudwatch.amazonaws.com" in f for f in found)


def test_a_deny_in_a_functions_role_blocks_its_failure_destination(raw: dict[str, Any]) -> None:
    queue = _one(raw, "AWS::SQS::Queue")

    def mutate(template: dict[str, Any]) -> None:
        for policy in of_type(template, "AWS::IAM::Policy").values():
            policy["Properties"]["PolicyDocument"]["Statement"].append(
                {"Effect": "Deny", "Action": "sqs:*", "Resource": {"Fn::GetAtt": [queue, "Arn"]}}
            )

    found = account_rules.async_functions_have_failure_destinations(_broken(raw, mutate))
    assert len(found) == 3 and all(f"may not sqs:SendMessage to {queue}" in f for f in found)


def test_a_schedule_role_whose_allow_has_an_unmet_condition_cannot_invoke(
    raw: dict[str, Any],
) -> None:
    role = _one(raw, "AWS::IAM::Role", "SchedulesRole")

    def mutate(template: dict[str, Any]) -> None:
        for policy in of_type(template, "AWS::IAM::Policy").values():
            if role in json.dumps(policy["Properties"]["Roles"]):
                for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
                    statement["Condition"] = {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}

    found = account_rules.schedules_have_a_role_and_a_dead_letter_queue(_broken(raw, mutate))
    assert len(found) == 8  # each of the four schedules: its target and its queue
    assert sum("may not lambda:InvokeFunction" in f for f in found) == 3
    assert sum("may not states:StartExecution" in f for f in found) == 1


def test_a_deny_to_cloudfront_on_the_pages_hides_the_site(raw: dict[str, Any]) -> None:
    site = _one(raw, "AWS::S3::Bucket", "StorageSite")

    def mutate(template: dict[str, Any]) -> None:
        for policy in of_type(template, "AWS::S3::BucketPolicy").values():
            if site in json.dumps(policy["Properties"]["Bucket"]):
                policy["Properties"]["PolicyDocument"]["Statement"].append(
                    {
                        "Effect": "Deny",
                        "Principal": "*",
                        "Action": "s3:Get*",
                        "Resource": {"Fn::Join": ["", [{"Fn::GetAtt": [site, "Arn"]}, "/*"]]},
                    }
                )

    found = account_rules.cloudfront_reaches_its_origins(_broken(raw, mutate))
    assert len(found) == 1 and "does not let" in found[0]
