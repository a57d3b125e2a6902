"""The stack composes the constructs and grants: nothing else lives here.

Grants, least privilege, come from one table (``constructs/grants.py``): each function gets the
DynamoDB actions its code calls (indexes by name, only where it queries one); Prepare reads and
writes the universes in the audit bucket, Decide reads them and writes prompts and replies under
decisions/ (retained), the publishers (Snapshot, Finalize) only read decisions/ and
write the site (never commitments/); Decide writes its decisions' commitments (retained),
Finalize the run's root and the log, and the site bucket refuses those writes to any other
principal (``commitment_writers``); only Decide reads the OpenRouter key (an SSM SecureString
parameter the operator creates: CloudFormation cannot create SecureStrings, and Secrets Manager
would cost $0.40 a month, a fifth of the deployment's budget).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from aws_cdk import CfnOutput, Duration, Stack
from aws_cdk import aws_lambda as lambda_
from constructs import Construct, Node

from arena_core.constants import ObjectLockMode
from arena_core.domain.panel import Methodology
from infra.constructs.functions import Functions
from infra.constructs.grants import Targets, apply_grants
from infra.constructs.layer import CoreLayer
from infra.constructs.monitoring import Monitoring
from infra.constructs.schedules import Schedules
from infra.constructs.site import SiteDistribution
from infra.constructs.storage import Adopted, Storage
from infra.constructs.workflow import DecisionWorkflow


def methodology(context: object) -> str:
    """The methodology context value, checked at synth: a typo fails here, not in a Lambda."""
    value = str(context or Methodology.V1.value)
    if value not in {m.value for m in Methodology}:
        choices = ", ".join(m.value for m in Methodology)
        raise ValueError(f"arena:methodology must be one of {choices}, got {value!r}")
    return value


def snapshot_ttl_days(context: object) -> str:
    """Days before raw snapshots expire (default 30; 0 keeps them), checked at synth."""
    days = 30 if context is None else int(str(context))
    if days < 0:
        raise ValueError(f"arena:snapshotTtlDays must be 0 or more, got {days}")
    return str(days)


DEFAULT_PARAMETER = "/forecaster-arena/openrouter-api-key"


def parameter_name(context: object) -> str:
    """The SSM parameter holding the OpenRouter key: a path, checked at synth."""
    name = str(context or DEFAULT_PARAMETER)
    if not name.startswith("/") or any(c.isspace() for c in name):
        raise ValueError(f"arena:openRouterParameter must be a path such as /a/b, got {name!r}")
    return name


def flag(context: object, *, default: bool) -> bool:
    """A boolean context value: ``-c key=true`` arrives as text, cdk.json as JSON."""
    if context is None:
        return default
    text = str(context).strip().lower()
    if text not in {"true", "false"}:
        raise ValueError(f"expected true or false, got {context!r}")
    return text == "true"


def llm_weekly_budget(context: object) -> str | None:
    """Dollars the models may cost in one run week (none by default), checked at synth."""
    if context is None:
        return None
    try:
        dollars = Decimal(str(context))
    except InvalidOperation:
        raise ValueError(f"arena:llmWeeklyBudget must be dollars, got {context!r}") from None
    if not dollars.is_finite() or dollars < 0:
        raise ValueError(f"arena:llmWeeklyBudget must be 0 or more, got {context!r}")
    return str(dollars)


DEFAULT_RUN_CONCURRENCY = 5


def run_concurrency(context: object) -> str:
    """Agents the weekly run decides at once (default 5; 0: all at once), checked at synth:
    keep it below the account's Lambda concurrency quota minus the scheduled functions."""
    value = DEFAULT_RUN_CONCURRENCY if context is None else int(str(context))
    if not 0 <= value <= 10_000:
        raise ValueError(f"arena:runConcurrency must be between 0 and 10000, got {value}")
    return str(value)


def site_refresh_minutes(context: object) -> str:
    """How often the snapshot ticks republish the live pages (default 30), checked at synth."""
    minutes = 30 if context is None else int(str(context))
    if not 10 <= minutes <= 10080:
        raise ValueError(f"arena:siteRefreshMinutes must be between 10 and 10080, got {minutes}")
    return str(minutes)


ADOPT = {"table": "arena:adoptTable", "audit_bucket": "arena:adoptAuditBucket"}
ADOPT |= {"site_bucket": "arena:adoptSiteBucket"}
NAME = re.compile(r"[A-Za-z0-9._-]{3,255}")


def adopted(node: Node) -> Adopted:
    """The retained table and buckets a new stack takes over (context values), checked at
    synth: a name, never a path or an ARN."""
    names = {}
    for field, key in ADOPT.items():
        value = node.try_get_context(key)
        if value is not None:
            if NAME.fullmatch(str(value)) is None:
                raise ValueError(f"{key} must be the name of a retained resource, got {value!r}")
            names[field] = str(value)
    return Adopted(**names)


DEFAULT_LOCK_DAYS = 3650  # ten years of retention for commitments and audit records


def object_lock_mode(context: object) -> str:
    """GOVERNANCE (default) or COMPLIANCE, checked at synth."""
    value = str(context or ObjectLockMode.GOVERNANCE.value)
    if value not in {m.value for m in ObjectLockMode}:
        choices = ", ".join(m.value for m in ObjectLockMode)
        raise ValueError(f"arena:objectLockMode must be one of {choices}, got {value!r}")
    return value


def object_lock_days(context: object, *, retain: bool) -> str:
    """Days each commitment and audit record is retained (0: none). The default is ten years,
    or none when the data is not retained: cdk destroy could not empty the buckets."""
    days = (DEFAULT_LOCK_DAYS if retain else 0) if context is None else int(str(context))
    if not 0 <= days <= 36500:
        raise ValueError(f"arena:objectLockDays must be between 0 and 36500, got {days}")
    return str(days)


class ArenaStack(Stack):
    def __init__(self, scope: Construct, construct_id: str, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, **kwargs)
        architecture = lambda_.Architecture.ARM_64
        retain = self.node.try_get_context("arena:retainData") is not False
        storage = Storage(self, "Storage", retain=retain, adopt=adopted(self.node))
        parameter = parameter_name(self.node.try_get_context("arena:openRouterParameter"))
        layer = CoreLayer(self, "Layer", architecture=architecture)
        functions = Functions(
            self,
            "Functions",
            layer=layer.layer,
            architecture=architecture,
            environment={
                "ARENA_TABLE_NAME": storage.table.table_name,
                "ARENA_AUDIT_BUCKET": storage.audit_bucket.bucket_name,
                "ARENA_SITE_BUCKET": storage.site_bucket.bucket_name,
                "ARENA_OPENROUTER_PARAMETER_NAME": parameter,
                "ARENA_INCLUDE_LLMS": str(
                    self.node.try_get_context("arena:includeLlms") is not False
                ).lower(),
                # What new cohorts freeze: v1 (default) or v1+panel (-c arena:methodology=...).
                "ARENA_METHODOLOGY": methodology(self.node.try_get_context("arena:methodology")),
                # Days before raw 10-minute snapshots expire (0: kept forever).
                "ARENA_SNAPSHOT_TTL_DAYS": snapshot_ttl_days(
                    self.node.try_get_context("arena:snapshotTtlDays")
                ),
                # Agents the weekly run decides at once (the account's Lambda quota).
                "ARENA_RUN_CONCURRENCY": run_concurrency(
                    self.node.try_get_context("arena:runConcurrency")
                ),
                # Minutes between the snapshot ticks' publications of the live pages.
                "ARENA_SITE_REFRESH_MINUTES": site_refresh_minutes(
                    self.node.try_get_context("arena:siteRefreshMinutes")
                ),
                # Object Lock retention of each commitment and audit record when written.
                "ARENA_OBJECT_LOCK_MODE": object_lock_mode(
                    self.node.try_get_context("arena:objectLockMode")
                ),
                "ARENA_OBJECT_LOCK_DAYS": object_lock_days(
                    self.node.try_get_context("arena:objectLockDays"), retain=retain
                ),
            },
        )
        budget = llm_weekly_budget(self.node.try_get_context("arena:llmWeeklyBudget"))
        if budget is not None:  # dollars the models may cost a run week (none by default)
            functions["Decide"].add_environment("ARENA_LLM_WEEKLY_BUDGET", budget)
        apply_grants(
            functions.by_name,
            Targets(
                storage.table,
                storage.audit_bucket,
                storage.site_bucket,
                self.format_arn(service="ssm", resource="parameter", resource_name=parameter[1:]),
            ),
        )
        interval = Duration.seconds(
            int(self.node.try_get_context("arena:retryIntervalSeconds") or 20)
        )
        workflow = DecisionWorkflow(
            self,
            "Workflow",
            prepare=functions["Prepare"],
            decide=functions["Decide"],
            finalize=functions["Finalize"],
            retry_interval=interval,
        )
        schedules = Schedules(
            self, "Schedules", functions=functions.by_name, state_machine=workflow.state_machine
        )
        site = SiteDistribution(self, "Site", bucket=storage.site_bucket, logs=storage.logs_bucket)
        monitoring = Monitoring(
            self,
            "Monitoring",
            functions=functions.by_name,
            state_machine=workflow.state_machine,
            dead_letters=schedules.dead_letters,
            alarm_email=self.node.try_get_context("arena:alarmEmail"),
            dashboard=flag(self.node.try_get_context("arena:dashboard"), default=False),
        )
        # Finalize names the agents of a run that ended without a decision, and the snapshot
        # pass a stopped resolution, on the same topic.
        for alerting in ("Finalize", "Snapshot"):
            functions[alerting].add_environment("ARENA_ALERT_TOPIC_ARN", monitoring.topic.topic_arn)
            monitoring.topic.grant_publish(functions[alerting])
        CfnOutput(self, "SiteUrl", value=site.url)
        CfnOutput(self, "StateMachineArn", value=workflow.state_machine.state_machine_arn)
        CfnOutput(self, "TableName", value=storage.table.table_name)
        CfnOutput(self, "AuditBucket", value=storage.audit_bucket.bucket_name)
        CfnOutput(self, "SiteBucket", value=storage.site_bucket.bucket_name)
        CfnOutput(self, "OpenRouterParameterName", value=parameter)
        if monitoring.dashboard is not None:
            CfnOutput(
                self,
                "DashboardUrl",
                value=f"https://console.aws.amazon.com/cloudwatch/home?region={self.region}"
                f"#dashboards:name={monitoring.dashboard.dashboard_name}",
            )
        CfnOutput(self, "AlarmTopicArn", value=monitoring.topic.topic_arn)
        # Printed by cdk deploy: who receives the alerts (nobody, or an e-mail to confirm).
        CfnOutput(self, "AlarmSubscription", value=monitoring.subscription)
        CfnOutput(self, "DeadLetterQueueUrl", value=schedules.dead_letters.queue_url)
        # The smoke test after a deploy opens this week's cohort at once with it.
        CfnOutput(self, "OpenCohortFunctionName", value=functions["OpenCohort"].function_name)
        self.storage, self.functions, self.workflow, self.parameter = (
            storage,
            functions,
            workflow,
            parameter,
        )
