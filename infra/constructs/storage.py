"""Storage: the DynamoDB table (key schema and TTL attribute from arena_core), the audit and
site buckets.

Both buckets are created with S3 Object Lock enabled (hence versioned) and no default
retention: the functions retain each audit record and each committed object when they write
it, with the deployment's mode and days (``arena:objectLockMode``, ``arena:objectLockDays``),
while the site's pages stay overwritable (their old versions expire after a day). With data
retained (the default) the site bucket's policy also refuses, to every principal, an
unconditional write under commitments/ (so a committed object is never replaced, and the log
only changes by a conditional replace) and any delete there (no delete marker can hide one).
"""

from __future__ import annotations

from typing import Any

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from constructs import Construct

from arena_core.adapters.dynamodb.schema import (
    EXPIRES_AT,
    GSI1,
    GSI1PK,
    GSI1SK,
    GSI2,
    GSI2PK,
    GSI2SK,
    PK,
    SK,
)
from arena_core.domain.commitment_log import DECISIONS_PREFIX, LOG_KEY, RUNS_PREFIX


def _string(name: str) -> dynamodb.Attribute:
    return dynamodb.Attribute(name=name, type=dynamodb.AttributeType.STRING)


class Storage(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, retain: bool) -> None:
        super().__init__(scope, construct_id)
        policy = RemovalPolicy.RETAIN if retain else RemovalPolicy.DESTROY
        self.table = dynamodb.TableV2(
            self,
            "Table",
            partition_key=_string(PK),
            sort_key=_string(SK),
            billing=dynamodb.Billing.on_demand(),
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            # Encrypted at rest with a key DynamoDB owns: no KMS request is billed (the AWS
            # managed aws/dynamodb key costs a KMS call whenever the table's cached data key
            # expires, i.e. on most 10-minute passes), and every item is public data anyway.
            encryption=dynamodb.TableEncryptionV2.dynamo_owned_key(),
            global_secondary_indexes=[
                dynamodb.GlobalSecondaryIndexPropsV2(
                    index_name=GSI1, partition_key=_string(GSI1PK), sort_key=_string(GSI1SK)
                ),
                dynamodb.GlobalSecondaryIndexPropsV2(
                    index_name=GSI2, partition_key=_string(GSI2PK), sort_key=_string(GSI2SK)
                ),
            ],
            removal_policy=policy,
            # Raw 10-minute snapshots carry it (ARENA_SNAPSHOT_TTL_DAYS); nothing else does.
            time_to_live_attribute=EXPIRES_AT,
        )

        def private_bucket(name: str, **extra: Any) -> s3.Bucket:
            """The baseline every bucket shares: no public access, encrypted, SSL only."""
            return s3.Bucket(
                self,
                name,
                block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
                encryption=s3.BucketEncryption.S3_MANAGED,
                enforce_ssl=True,
                removal_policy=policy,
                auto_delete_objects=not retain,
                **extra,
            )

        self.logs_bucket = private_bucket(
            "AccessLogs",
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
            lifecycle_rules=[s3.LifecycleRule(expiration=Duration.days(90))],
        )
        self.audit_bucket = private_bucket(
            "Audit",
            versioned=True,
            object_lock_enabled=True,
            server_access_logs_bucket=self.logs_bucket,
            server_access_logs_prefix="audit/",
            lifecycle_rules=[
                s3.LifecycleRule(
                    transitions=[
                        s3.Transition(
                            storage_class=s3.StorageClass.INFREQUENT_ACCESS,
                            transition_after=Duration.days(90),
                        )
                    ],
                    noncurrent_version_expiration=Duration.days(30),
                )
            ],
        )
        self.site_bucket = private_bucket(
            "Site",
            versioned=True,
            object_lock_enabled=True,
            server_access_logs_bucket=self.logs_bucket,
            server_access_logs_prefix="site/",
            # Pages are overwritten every publication; committed objects never are.
            lifecycle_rules=[s3.LifecycleRule(noncurrent_version_expiration=Duration.days(1))],
        )
        if retain:  # cdk destroy empties the buckets otherwise, commitments included
            for statement in write_once_statements(self.site_bucket):
                self.site_bucket.add_to_resource_policy(statement)


def write_once_statements(bucket: s3.IBucket) -> list[iam.PolicyStatement]:
    """Deny, to everyone: a write of a committed object without If-None-Match, a write of the
    log without If-Match or If-None-Match, and any delete under commitments/."""

    def deny(actions: list[str], keys: list[str], **conditions: object) -> iam.PolicyStatement:
        return iam.PolicyStatement(
            effect=iam.Effect.DENY,
            principals=[iam.AnyPrincipal()],
            actions=actions,
            resources=[bucket.arn_for_objects(k) for k in keys],
            conditions=conditions or None,
        )

    return [
        deny(
            ["s3:PutObject"],
            [f"{DECISIONS_PREFIX}*", f"{RUNS_PREFIX}*"],
            Null={"s3:if-none-match": "true"},
        ),
        deny(["s3:PutObject"], [LOG_KEY], Null={"s3:if-match": "true", "s3:if-none-match": "true"}),
        deny(["s3:DeleteObject", "s3:DeleteObjectVersion"], ["commitments/*"]),
    ]
