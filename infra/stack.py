"""The stack composes the constructs and grants: nothing else lives here.

Grants, least privilege: every function reads and writes the table (the repository is its
only store); prepare and decide use the audit bucket (universe, prompts, replies), the
publishers (snapshot, resolve, finalize) read it for raw replies and are the only writers of
the site bucket; only decide reads the OpenRouter secret.
"""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput, Duration, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from infra.constructs.functions import Functions
from infra.constructs.layer import CoreLayer
from infra.constructs.monitoring import Monitoring
from infra.constructs.schedules import Schedules
from infra.constructs.site import SiteDistribution
from infra.constructs.storage import Storage
from infra.constructs.workflow import DecisionWorkflow

PUBLISHERS = ("Snapshot", "Resolve", "Finalize")


def grant_objects(bucket: s3.IBucket, function: lambda_.IFunction, *, write: bool) -> None:
    """Object reads (and writes) only: no deletes, no bucket administration. ListBucket lets a
    missing key answer 404 rather than 403, which is how a blob store tells "absent"."""
    actions = ["s3:GetObject", "s3:PutObject"] if write else ["s3:GetObject"]
    function.add_to_role_policy(
        iam.PolicyStatement(actions=actions, resources=[bucket.arn_for_objects("*")])
    )
    function.add_to_role_policy(
        iam.PolicyStatement(actions=["s3:ListBucket"], resources=[bucket.bucket_arn])
    )


class ArenaStack(Stack):
    def __init__(self, scope: Construct, construct_id: str, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, **kwargs)
        architecture = lambda_.Architecture.ARM_64
        retain = self.node.try_get_context("arena:retainData") is not False
        storage = Storage(self, "Storage", retain=retain)
        secret = secretsmanager.Secret(
            self,
            "OpenRouterApiKey",
            description="OpenRouter API key for the LLM agents: put the key here after deploying",
        )
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
                "ARENA_OPENROUTER_SECRET_NAME": secret.secret_name,
                "ARENA_INCLUDE_LLMS": str(
                    self.node.try_get_context("arena:includeLlms") is not False
                ).lower(),
            },
        )
        for function in functions.by_name.values():
            storage.table.grant_read_write_data(function)
        for name in ("Prepare", "Decide"):
            grant_objects(storage.audit_bucket, functions[name], write=True)
        for name in PUBLISHERS:
            grant_objects(storage.audit_bucket, functions[name], write=False)
            grant_objects(storage.site_bucket, functions[name], write=True)
        secret.grant_read(functions["Decide"])
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
        Monitoring(
            self,
            "Monitoring",
            functions=functions.by_name,
            state_machine=workflow.state_machine,
            dead_letters=schedules.dead_letters,
            alarm_email=self.node.try_get_context("arena:alarmEmail"),
        )
        CfnOutput(self, "SiteUrl", value=site.url)
        CfnOutput(self, "StateMachineArn", value=workflow.state_machine.state_machine_arn)
        CfnOutput(self, "TableName", value=storage.table.table_name)
        CfnOutput(self, "AuditBucket", value=storage.audit_bucket.bucket_name)
        CfnOutput(self, "SiteBucket", value=storage.site_bucket.bucket_name)
        CfnOutput(self, "OpenRouterSecretName", value=secret.secret_name)
        self.storage, self.functions, self.workflow, self.secret = (
            storage,
            functions,
            workflow,
            secret,
        )
