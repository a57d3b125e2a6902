"""Template assertions: every resource and its key properties, and least privilege."""

from __future__ import annotations

import json
from typing import Any

from aws_cdk.assertions import Annotations, Match, Template

from arena_core.adapters.dynamodb.schema import EXPIRES_AT, create_table_kwargs
from infra.constructs.site import CONTENT_SECURITY_POLICY


def resources(raw: dict[str, Any], kind: str) -> dict[str, Any]:
    return {k: v for k, v in raw["Resources"].items() if v["Type"] == kind}


def logical(raw: dict[str, Any], prefix: str, kind: str = "AWS::Lambda::Function") -> str:
    (found,) = [k for k in resources(raw, kind) if k.startswith(prefix)]
    return found


def test_table_uses_the_key_schema_the_tests_use(raw: dict[str, Any]) -> None:
    (table,) = resources(raw, "AWS::DynamoDB::GlobalTable").values()
    props = table["Properties"]
    expected = create_table_kwargs("x")
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert sorted(props["AttributeDefinitions"], key=str) == sorted(
        expected["AttributeDefinitions"], key=str
    )
    assert props["KeySchema"] == expected["KeySchema"]
    indexes = {i["IndexName"]: i["KeySchema"] for i in props["GlobalSecondaryIndexes"]}
    assert indexes == {i["IndexName"]: i["KeySchema"] for i in expected["GlobalSecondaryIndexes"]}
    # Encrypted at rest with DynamoDB's own key: no KMS request to pay for (or key policy)
    assert props.get("SSESpecification", {}).get("SSEEnabled", False) is False
    assert "KMSMasterKeyId" not in json.dumps(props)
    (replica,) = props["Replicas"]
    assert replica["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
    # Raw snapshots expire through TTL on the attribute the adapter writes
    assert props["TimeToLiveSpecification"] == {"AttributeName": EXPIRES_AT, "Enabled": True}
    envs = [f["Properties"]["Environment"]["Variables"] for f in functions(raw)]
    assert {e["ARENA_SNAPSHOT_TTL_DAYS"] for e in envs} == {"30"}


def functions(raw: dict[str, Any]) -> list[dict[str, Any]]:
    found = resources(raw, "AWS::Lambda::Function").values()
    return [f for f in found if "ARENA_TABLE_NAME" in json.dumps(f)]


def test_outputs_name_what_an_operator_needs(raw: dict[str, Any]) -> None:
    outputs = raw["Outputs"]
    for name in ("SiteUrl", "StateMachineArn", "TableName", "DeadLetterQueueUrl", "AlarmTopicArn"):
        assert name in outputs
    assert "DashboardUrl" not in outputs  # no dashboard unless asked for


def test_buckets_are_private_encrypted_ssl_only(template: Template, raw: dict[str, Any]) -> None:
    buckets = resources(raw, "AWS::S3::Bucket")
    assert len(buckets) == 3
    for bucket in buckets.values():
        props = bucket["Properties"]
        assert props["PublicAccessBlockConfiguration"] == {
            "BlockPublicAcls": True,
            "BlockPublicPolicy": True,
            "IgnorePublicAcls": True,
            "RestrictPublicBuckets": True,
        }
        assert props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    for policy in resources(raw, "AWS::S3::BucketPolicy").values():
        statements = policy["Properties"]["PolicyDocument"]["Statement"]
        assert any(
            s.get("Condition", {}).get("Bool", {}).get("aws:SecureTransport") == "false"
            for s in statements
        )
    audit = raw["Resources"][logical(raw, "StorageAudit", "AWS::S3::Bucket")]["Properties"]
    assert audit["LifecycleConfiguration"]["Rules"]
    assert audit["LoggingConfiguration"]["LogFilePrefix"] == "audit/"


def test_functions_runtime_architecture_tracing_and_sizing(raw: dict[str, Any]) -> None:
    functions = {
        k: v["Properties"]
        for k, v in resources(raw, "AWS::Lambda::Function").items()
        if k.startswith("Functions")
    }
    assert len(functions) == 6
    handlers = sorted(p["Handler"] for p in functions.values())
    assert handlers == sorted(
        ["handler.handler"] * 3 + ["handler.prepare", "handler.decide", "handler.finalize"]
    )
    for props in functions.values():
        assert props["Runtime"] == "python3.12"
        assert props["Architectures"] == ["arm64"]
        assert props["TracingConfig"] == {"Mode": "Active"}
        assert len(props["Layers"]) == 1
        assert set(props["Environment"]["Variables"]) >= {
            "ARENA_TABLE_NAME",
            "ARENA_AUDIT_BUCKET",
            "POWERTOOLS_SERVICE_NAME",
        }
    decide = raw["Resources"][logical(raw, "FunctionsDecide")]["Properties"]
    assert decide["Timeout"] == 14 * 60
    assert decide["MemorySize"] == 512


def test_state_machine_fans_out_with_retry_catch_logging_and_tracing(raw: dict[str, Any]) -> None:
    (machine,) = resources(raw, "AWS::StepFunctions::StateMachine").values()
    props = machine["Properties"]
    assert props["TracingConfiguration"] == {"Enabled": True}
    assert props["LoggingConfiguration"]["Level"] == "ALL"
    assert props["LoggingConfiguration"]["IncludeExecutionData"] is True
    text = json.dumps(props["DefinitionString"])
    for fragment in (
        "MaxConcurrencyPath",
        "$.max_concurrency",
        "RetryableUpstreamError",
        "ClaimHeldError",
        "Runtime.ExitError",
        "States.ALL",
        "RecordFailure",
        "$$.Execution.Name",
    ):
        assert fragment in text


def test_schedules_fire_in_utc_with_retries_and_a_dead_letter_queue(raw: dict[str, Any]) -> None:
    schedules = {
        v["Properties"]["ScheduleExpression"]: v["Properties"]
        for v in resources(raw, "AWS::Scheduler::Schedule").values()
    }
    assert set(schedules) == {
        "cron(0 0 ? * SUN *)",
        "cron(5 0 ? * SUN *)",
        "rate(10 minutes)",
        "rate(1 hour)",
    }
    for props in schedules.values():
        assert props["ScheduleExpressionTimezone"] == "UTC"
        assert props["Target"]["RetryPolicy"]["MaximumRetryAttempts"] == 3
        assert "DeadLetterConfig" in props["Target"]
    run = json.dumps(schedules["cron(5 0 ? * SUN *)"]["Target"]["Arn"])
    assert "Workflow" in run


def test_site_is_cloudfront_with_oac_https_and_security_headers(template: Template) -> None:
    template.has_resource_properties(
        "AWS::CloudFront::OriginAccessControl",
        {
            "OriginAccessControlConfig": {
                "OriginAccessControlOriginType": "s3",
                "SigningBehavior": "always",
            }
        },
    )
    template.has_resource_properties(
        "AWS::CloudFront::Distribution",
        {
            "DistributionConfig": Match.object_like(
                {
                    "DefaultRootObject": "index.html",
                    "DefaultCacheBehavior": Match.object_like(
                        {"ViewerProtocolPolicy": "redirect-to-https"}
                    ),
                }
            )
        },
    )
    template.has_resource_properties(
        "AWS::CloudFront::ResponseHeadersPolicy",
        {
            "ResponseHeadersPolicyConfig": Match.object_like(
                {
                    "SecurityHeadersConfig": Match.object_like(
                        {
                            "ContentSecurityPolicy": {
                                "ContentSecurityPolicy": CONTENT_SECURITY_POLICY,
                                "Override": True,
                            },
                            "ContentTypeOptions": {"Override": True},
                            "FrameOptions": {"FrameOption": "DENY", "Override": True},
                            "StrictTransportSecurity": Match.object_like(
                                {"AccessControlMaxAgeSec": 31536000}
                            ),
                        }
                    )
                }
            )
        },
    )
    template.has_output("SiteUrl", {})


def test_monitoring_two_alarms_a_failed_run_rule_and_no_dashboard(raw: dict[str, Any]) -> None:
    alarms = resources(raw, "AWS::CloudWatch::Alarm")
    names = sorted(k.removeprefix("Monitoring")[:-8] for k in alarms)
    assert names == ["DeadLetters", "NoSnapshot"]
    no_snapshot = next(v for k, v in alarms.items() if "NoSnapshot" in k)["Properties"]
    # The free AWS/Lambda metric of the snapshot function, not a custom one
    assert (no_snapshot["Namespace"], no_snapshot["MetricName"]) == ("AWS/Lambda", "Invocations")
    assert no_snapshot["Dimensions"][0]["Value"] == {"Ref": logical(raw, "FunctionsSnapshot")}
    assert no_snapshot["TreatMissingData"] == "breaching"
    assert no_snapshot["Period"] == 1800
    (topic,) = resources(raw, "AWS::SNS::Topic")
    assert all(v["Properties"]["AlarmActions"] == [{"Ref": topic}] for v in alarms.values())
    (rule,) = resources(raw, "AWS::Events::Rule").values()
    pattern = rule["Properties"]["EventPattern"]
    assert pattern["detail"]["status"] == ["FAILED", "TIMED_OUT", "ABORTED"]
    assert pattern["detail"]["stateMachineArn"] == [
        {"Ref": logical(raw, "WorkflowStateMachine", "AWS::StepFunctions::StateMachine")}
    ]
    assert rule["Properties"]["Targets"][0]["Arn"] == {"Ref": topic}
    assert resources(raw, "AWS::CloudWatch::Dashboard") == {}
    # Finalize names a run's failed agents on the same topic, the snapshot pass a stopped
    # resolution: they alone may publish there
    for publisher in ("FunctionsFinalize", "FunctionsSnapshot"):
        function = raw["Resources"][logical(raw, publisher)]["Properties"]
        assert function["Environment"]["Variables"]["ARENA_ALERT_TOPIC_ARN"] == {"Ref": topic}
    publishers = {
        json.dumps(policy["Properties"]["Roles"])
        for policy in resources(raw, "AWS::IAM::Policy").values()
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if "sns:Publish" in actions(statement)
    }
    assert len(publishers) == 2
    assert {"FunctionsFinalize", "FunctionsSnapshot"} == {
        name for name in ("FunctionsFinalize", "FunctionsSnapshot") for p in publishers if name in p
    }


def _alarm(raw: dict[str, Any], name: str) -> dict[str, Any]:
    alarms = resources(raw, "AWS::CloudWatch::Alarm")
    found: dict[str, Any] = next(v for k, v in alarms.items() if name in k)["Properties"]
    return found


def test_the_dead_letter_alarm_counts_messages_sent_so_it_never_latches(
    raw: dict[str, Any],
) -> None:
    """On messages *visible* (kept 14 days) it stayed in ALARM after the first failure and
    later failures sent nothing: on messages *sent* each failure alarms, and it returns to OK."""
    letters = _alarm(raw, "DeadLetters")
    assert (letters["Namespace"], letters["MetricName"]) == ("AWS/SQS", "NumberOfMessagesSent")
    assert (letters["Statistic"], letters["Period"], letters["Threshold"]) == ("Sum", 300, 1)
    assert letters["TreatMissingData"] == "notBreaching"
    (topic,) = resources(raw, "AWS::SNS::Topic")
    for name in ("DeadLetters", "NoSnapshot"):
        alarm = _alarm(raw, name)
        assert alarm["OKActions"] == [{"Ref": topic}], name  # told when it is over
    description = json.dumps(letters["AlarmDescription"])
    assert "aws sqs receive-message" in description and "aws sqs purge-queue" in description
    assert logical(raw, "SchedulesDeadLetters", "AWS::SQS::Queue") in description  # its URL
    assert "Check the" in _alarm(raw, "NoSnapshot")["AlarmDescription"]


def test_eventbridge_may_publish_to_the_topic_only_for_the_failed_run_rule(
    raw: dict[str, Any],
) -> None:
    (rule_id,) = resources(raw, "AWS::Events::Rule")
    (policy,) = resources(raw, "AWS::SNS::TopicPolicy").values()
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    events = [s for s in statements if "events.amazonaws.com" in json.dumps(s.get("Principal"))]
    assert events == [
        {
            "Action": "sns:Publish",
            "Condition": {"ArnEquals": {"aws:SourceArn": {"Fn::GetAtt": [rule_id, "Arn"]}}},
            "Effect": "Allow",
            "Principal": {"Service": "events.amazonaws.com"},
            "Resource": {"Ref": next(iter(resources(raw, "AWS::SNS::Topic")))},
            "Sid": "AllowTheFailedRunRule",
        }
    ]


def test_the_deploy_output_says_who_receives_the_alerts(raw: dict[str, Any]) -> None:
    """Without arena:alarmEmail nobody does: the output and a synth warning say so; with it,
    the subscription is pending until the e-mail is confirmed."""
    from infra.app import build_app  # noqa: PLC0415
    from tests.infra.conftest import FAST  # noqa: PLC0415

    assert raw["Outputs"]["AlarmSubscription"]["Value"].startswith("NONE. No one receives")
    app, stack = build_app(nag=False, context=FAST)
    Annotations.from_stack(stack).has_warning("*", Match.string_like_regexp("No one receives"))
    app, stack = build_app(nag=False, context={**FAST, "arena:alarmEmail": "ops@example.com"})
    template = app.synth().get_stack_by_name(stack.stack_name).template
    subscription = template["Outputs"]["AlarmSubscription"]["Value"]
    assert subscription.startswith("pending: confirm the e-mail AWS sent to ops@example.com")
    Annotations.from_stack(stack).has_no_warning("*", Match.string_like_regexp("No one receives"))


def test_the_dashboard_is_opt_in() -> None:
    from infra.app import build_app  # noqa: PLC0415
    from tests.infra.conftest import FAST  # noqa: PLC0415

    app, stack = build_app(nag=False, context={**FAST, "arena:dashboard": "true"})
    template = app.synth().get_stack_by_name(stack.stack_name).template
    (logical_id,) = resources(template, "AWS::CloudWatch::Dashboard")
    dashboard = json.dumps(template["Outputs"]["DashboardUrl"]["Value"])
    assert "#dashboards:name=" in dashboard and logical_id in dashboard
    body = json.dumps(template["Resources"][logical_id]["Properties"]["DashboardBody"])
    assert "AWS/Lambda" in body and "filter message = 'decided'" in body
    assert "ForecasterArena" not in body  # no custom metric namespace: AWS metrics and logs


def statements_of(raw: dict[str, Any], role_prefix: str) -> list[dict[str, Any]]:
    found = []
    for policy in resources(raw, "AWS::IAM::Policy").values():
        roles = json.dumps(policy["Properties"]["Roles"])
        if role_prefix in roles:
            found += policy["Properties"]["PolicyDocument"]["Statement"]
    return found


def actions(statement: dict[str, Any]) -> list[str]:
    value = statement["Action"]
    return value if isinstance(value, list) else [value]


def test_only_decide_reads_the_openrouter_key(raw: dict[str, Any]) -> None:
    """The key is an SSM SecureString the operator creates (no Secrets Manager secret, no
    key in an environment variable): only Decide may get the parameter, and only that one."""
    assert resources(raw, "AWS::SecretsManager::Secret") == {}
    readers = set()
    for policy in resources(raw, "AWS::IAM::Policy").values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            if "ssm:GetParameter" in actions(statement):
                assert "parameter/forecaster-arena/openrouter-api-key" in json.dumps(
                    statement["Resource"]
                )
                readers.add(json.dumps(policy["Properties"]["Roles"]))
    assert len(readers) == 1
    assert "FunctionsDecide" in next(iter(readers))
    outputs = raw["Outputs"]
    assert outputs["OpenRouterParameterName"]["Value"] == "/forecaster-arena/openrouter-api-key"
    for name in (
        "FunctionsSnapshot",
        "FunctionsResolve",
        "FunctionsPrepare",
        "FunctionsFinalize",
        "FunctionsOpenCohort",
    ):
        assert not any(
            a.startswith("secretsmanager:") for s in statements_of(raw, name) for a in actions(s)
        )


def test_only_the_publishers_write_the_site_bucket(raw: dict[str, Any]) -> None:
    """Pages: the publishers alone (Snapshot's ticks, Finalize after a run; the resolution pass
    publishes nothing). Decide writes only under commitments/ (its decisions' commitments and
    their log)."""
    site = logical(raw, "StorageSite", "AWS::S3::Bucket")
    writers: set[str] = set()
    for policy in resources(raw, "AWS::IAM::Policy").values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            resource = json.dumps(statement["Resource"])
            if site not in resource or not any(a.startswith("s3:Put") for a in actions(statement)):
                continue
            role = "".join(r["Ref"] for r in policy["Properties"]["Roles"])
            if role.startswith("FunctionsDecide"):
                assert '"/commitments/' in resource, resource
            else:
                writers.add(role)
    assert sorted(w.split("ServiceRole")[0] for w in writers) == sorted(
        f"Functions{n}" for n in ("Finalize", "Snapshot")
    )


def test_no_wildcard_actions_on_data_resources(raw: dict[str, Any]) -> None:
    for policy in resources(raw, "AWS::IAM::Policy").values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            for action in actions(statement):
                assert action not in ("*", "s3:*", "dynamodb:*", "secretsmanager:*", "sqs:*")
                assert not action.startswith(("s3:Delete", "dynamodb:DeleteTable", "s3:PutBucket"))


def test_the_publications_bookkeeping_is_refused_to_the_distribution(raw: dict[str, Any]) -> None:
    """Origin access control allows CloudFront every object of the site bucket; the manifest
    and the cohorts' marks (``_internal/``) share it, so a Deny must name them."""
    policies = resources(raw, "AWS::S3::BucketPolicy").values()
    cloudfront = [
        statement
        for policy in policies
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if statement.get("Principal") == {"Service": "cloudfront.amazonaws.com"}
    ]
    allowed = [s for s in cloudfront if s["Effect"] == "Allow"]
    (denied,) = [s for s in cloudfront if s["Effect"] == "Deny"]
    assert allowed and all("s3:GetObject" in json.dumps(s["Action"]) for s in allowed)
    assert denied["Action"] == "s3:GetObject"
    suffixes = sorted(resource["Fn::Join"][1][-1] for resource in denied["Resource"])
    assert suffixes == ["/.site-manifest.json", "/_internal/*"]


def test_the_weekly_llm_budget_and_the_run_concurrency_are_deployment_settings(
    raw: dict[str, Any],
) -> None:
    import pytest  # noqa: PLC0415

    from infra.app import build_app  # noqa: PLC0415
    from tests.infra.conftest import FAST  # noqa: PLC0415

    decide = raw["Resources"][logical(raw, "FunctionsDecide")]["Properties"]
    variables = decide["Environment"]["Variables"]
    assert "ARENA_LLM_WEEKLY_BUDGET" not in variables  # no budget unless asked
    assert variables["ARENA_RUN_CONCURRENCY"] == "5"  # a new account's quota: 10 at most
    context = {**FAST, "arena:llmWeeklyBudget": "12.50", "arena:runConcurrency": "2"}
    app, stack = build_app(nag=False, context=context)
    template = app.synth().get_stack_by_name(stack.stack_name).template
    decide = template["Resources"][logical(template, "FunctionsDecide")]["Properties"]
    assert decide["Environment"]["Variables"]["ARENA_LLM_WEEKLY_BUDGET"] == "12.50"
    assert decide["Environment"]["Variables"]["ARENA_RUN_CONCURRENCY"] == "2"
    for bad in ({"arena:llmWeeklyBudget": "-1"}, {"arena:runConcurrency": "-3"}):
        with pytest.raises(ValueError, match="must be"):
            build_app(nag=False, context={**FAST, **bad})


ADOPT = {
    "arena:adoptTable": "ForecasterArena-StorageTable-OLD",
    "arena:adoptAuditBucket": "forecasterarena-storageaudit-old",
    "arena:adoptSiteBucket": "forecasterarena-storagesite-old",
}


def test_a_new_stack_adopts_the_retained_table_and_buckets() -> None:
    """cdk destroy retains the table and the buckets, and a second deploy started from zero:
    with the context values, the new stack uses them by name (cdk-nag passing), grants its
    functions on them, and writes the site bucket's policy anew."""
    from infra.app import build_app  # noqa: PLC0415
    from tests.infra.conftest import FAST  # noqa: PLC0415

    app, stack = build_app(nag=True, context={**FAST, **ADOPT})
    template = app.synth().get_stack_by_name(stack.stack_name).template
    assert resources(template, "AWS::DynamoDB::GlobalTable") == {}
    buckets = resources(template, "AWS::S3::Bucket")
    assert [k for k in buckets if "Audit" in k or "Site" in k] == []  # access logs: new
    decide = template["Resources"][logical(template, "FunctionsDecide")]["Properties"]
    variables = decide["Environment"]["Variables"]
    assert variables["ARENA_TABLE_NAME"] == ADOPT["arena:adoptTable"]
    assert variables["ARENA_AUDIT_BUCKET"] == ADOPT["arena:adoptAuditBucket"]
    assert variables["ARENA_SITE_BUCKET"] == ADOPT["arena:adoptSiteBucket"]
    text = json.dumps(resources(template, "AWS::IAM::Policy"))
    assert f"table/{ADOPT['arena:adoptTable']}/index/" in text  # the indexes, by name
    assert f":s3:::{ADOPT['arena:adoptAuditBucket']}/universes/" in text
    (policy,) = [
        v for v in resources(template, "AWS::S3::BucketPolicy").values()
        if v["Properties"]["Bucket"] == ADOPT["arena:adoptSiteBucket"]
    ]  # fmt: skip
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    shown = json.dumps(statements)
    assert '"aws:SecureTransport": "false"' in shown
    assert "commitments/log.jsonl" in shown and "s3:DeleteObjectVersion" in shown
    reads = [s for s in statements if "cloudfront" in json.dumps(s.get("Principal"))]
    assert any(s["Effect"] == "Allow" and s["Action"] == "s3:GetObject" for s in reads)
    assert any(s.get("Sid") == "BookkeepingIsNotServed" for s in reads)


def test_adoption_names_are_checked_at_synth() -> None:
    import pytest  # noqa: PLC0415

    from infra.app import build_app  # noqa: PLC0415
    from tests.infra.conftest import FAST  # noqa: PLC0415

    with pytest.raises(ValueError, match="arena:adoptSiteBucket must be the name"):
        build_app(nag=False, context={**FAST, "arena:adoptSiteBucket": "arn:aws:s3:::x"})
