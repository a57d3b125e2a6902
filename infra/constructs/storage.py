"""Storage: the DynamoDB table (key schema and TTL attribute from arena_core), the audit and
site buckets."""

from __future__ import annotations

from typing import Any

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
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
            encryption=dynamodb.TableEncryptionV2.aws_managed_key(),
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
            "Site", server_access_logs_bucket=self.logs_bucket, server_access_logs_prefix="site/"
        )
