"""Storage: the DynamoDB table (key schema and TTL attribute from arena_core), the audit and
site buckets.

Both buckets are created with S3 Object Lock enabled (hence versioned) and no default
retention: the functions retain each audit record and each committed object when they write
it, with the deployment's mode and days (``arena:objectLockMode``, ``arena:objectLockDays``),
while the site's pages stay overwritable (their old versions expire after a day). With data
retained (the default) the site bucket's policy also refuses, to every principal, an
unconditional write under commitments/ (so a committed object is never replaced, and the log
only changes by a conditional replace) and any delete there (no delete marker can hide one).

A new stack may adopt the table and buckets a destroyed one retained (``Adopted``: the context
values ``arena:adoptTable``, ``arena:adoptAuditBucket``, ``arena:adoptSiteBucket``): it uses them
by name, grants its functions on them as on its own, and writes the site bucket's policy anew
(TLS only, the write-once rules, CloudFront's access). What the first stack set on them (TTL,
point-in-time recovery, Object Lock, lifecycle, access logging) stays as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Adopted:
    """Names of retained resources a new stack adopts instead of creating (None: create)."""

    table: str | None = None
    audit_bucket: str | None = None
    site_bucket: str | None = None


class Storage(Construct):
    def __init__(
        self, scope: Construct, construct_id: str, *, retain: bool, adopt: Adopted | None = None
    ) -> None:
        super().__init__(scope, construct_id)
        adopt = adopt or Adopted()
        self.adopted = adopt
        policy = RemovalPolicy.RETAIN if retain else RemovalPolicy.DESTROY
        self.table: dynamodb.ITableV2 = (
            dynamodb.TableV2.from_table_attributes(
                self, "Table", table_name=adopt.table, global_indexes=[GSI1, GSI2]
            )
            if adopt.table
            else self._table(policy)
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
        self.audit_bucket: s3.IBucket = (
            s3.Bucket.from_bucket_name(self, "Audit", adopt.audit_bucket)
            if adopt.audit_bucket
            else self._audit(private_bucket)
        )
        if adopt.site_bucket:
            self.site_bucket: s3.IBucket = _adopted_with_policy(self, "Site", adopt.site_bucket)
        else:
            self.site_bucket = private_bucket(
                "Site",
                versioned=True,
                object_lock_enabled=True,
                server_access_logs_bucket=self.logs_bucket,
                server_access_logs_prefix="site/",
                # Pages are overwritten every publication; committed objects never are.
                lifecycle_rules=[s3.LifecycleRule(noncurrent_version_expiration=Duration.days(1))],
            )
        if retain or adopt.site_bucket:  # cdk destroy empties the buckets otherwise
            for statement in write_once_statements(self.site_bucket):
                self.site_bucket.add_to_resource_policy(statement)

    def _table(self, policy: RemovalPolicy) -> dynamodb.TableV2:
        return dynamodb.TableV2(
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

    def _audit(self, private_bucket: Callable[..., s3.Bucket]) -> s3.Bucket:
        return private_bucket(
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


def _adopted_with_policy(scope: Construct, name: str, bucket_name: str) -> s3.IBucket:
    """A retained bucket by name, with a bucket policy of this stack's (an imported bucket has
    none to add to: the policy statements would be dropped), TLS only as the stack's own."""
    bucket = s3.Bucket.from_bucket_name(scope, name, bucket_name)
    policy = s3.BucketPolicy(scope, f"{name}Policy", bucket=bucket)
    bucket.policy = policy
    policy.document.add_statements(
        iam.PolicyStatement(
            effect=iam.Effect.DENY,
            principals=[iam.AnyPrincipal()],
            actions=["s3:*"],
            resources=[bucket.bucket_arn, bucket.arn_for_objects("*")],
            conditions={"Bool": {"aws:SecureTransport": "false"}},
        )
    )
    return bucket


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
