"""Least privilege in one table: what each function may do to the table, the buckets and the key.

Each row is read off the code paths from the function's handler (``functions/*/handler.py`` →
``arena_core.entrypoints`` → services → adapters) down to the DynamoDB and S3 calls; the
comments name the calls that need each action. Two rules of IAM shape the rows:

- A TransactWriteItems is allowed item by item: its Put, Update, Delete and ConditionCheck parts
  need dynamodb:PutItem, UpdateItem, DeleteItem and ConditionCheckItem (there is no
  TransactWriteItems action). No transaction here has a ConditionCheck part.
- S3 answers a read of an absent key with 404 only to a caller allowed s3:ListBucket on the
  bucket (403 AccessDenied otherwise). Code that treats "absent" as an answer (the universe
  lookup, the site manifest before the first publish, the commitments log before its first
  line) therefore needs ListBucket, although it never lists.
- A PutObject that sets an Object Lock retention also needs s3:PutObjectRetention: every audit
  record is retained, and so is every committed object (the deployment's mode and days).
- The publishers write any page (``*``), so their roles deny what they must not write:
  commitments/ for Snapshot and Resolve, commitments/decisions/ for Finalize. The site
  bucket's policy says the same for every principal (``commitment_writers``): only Decide's
  role may create a decision's commitment, only Finalize's may write the runs and the log.

Indexes are granted by name, and only Query: no function reads an index otherwise.
``tests/infra/test_least_privilege.py`` checks the synthesized policies against these rows and
runs the handlers on embedded AWS to check that no call they make falls outside them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3

from arena_core.adapters.dynamodb.schema import GSI1, GSI2
from arena_core.domain.commitment_log import DECISIONS_PREFIX, LOG_KEY, RUNS_PREFIX
from arena_core.ports.publisher import INTERNAL

# Audit bucket key patterns (see PrepareRunService._universe and DecideService._consult).
UNIVERSES = "universes/*"  # the week's market universe, captured once by Prepare
DECISIONS = "decisions/*"  # prompts and raw replies, written by Decide, shown by the site
PANELS = "panels/*"  # v1+panel: the week's forecast panel, drawn by Prepare, read by Decide
# The publication's bookkeeping (its root, manifest parts, state, memo and sealed cohorts): read
# back by the publishers, never served (infra/constructs/site.py). No reader file is read back.
BOOKKEEPING = f"{INTERNAL}*"
# Site bucket key patterns of the public commitments (arena_core.domain.commitment_log).
COMMITTED_DECISIONS = f"{DECISIONS_PREFIX}*"  # Decide: each decision's record, once
COMMITTED_RUNS = f"{RUNS_PREFIX}*"  # Finalize: each run's root, once
COMMITMENTS = "commitments/*"  # Finalize reads back what the log does not list yet
COMMITMENTS_LOG = LOG_KEY  # Finalize alone appends: its decisions and its run


@dataclass(frozen=True)
class Grant:
    """One function's row: DynamoDB actions on the table (without the ``dynamodb:`` prefix),
    the indexes it queries, the key patterns it reads and writes in each bucket, and what else
    it touches. Audit writes are retained; site keys are written plainly (``site_writes``) or
    once and retained (``site_commits``)."""

    table: tuple[str, ...] = ()
    indexes: tuple[str, ...] = ()
    audit_reads: tuple[str, ...] = ()
    audit_writes: tuple[str, ...] = ()
    audit_absent_keys: bool = False  # it looks up audit keys that may not exist (needs 404)
    site_reads: tuple[str, ...] = ()
    site_writes: tuple[str, ...] = ()
    site_commits: tuple[str, ...] = ()
    site_denies: tuple[str, ...] = ()  # site keys it must never write, whatever else allows
    site_absent_keys: bool = False  # it reads site keys that may not exist (needs 404)
    reads_api_key: bool = False


# Publishing the site reads broadly but only by key, partition and index: cohorts by status
# (GSI1 Query), families' latest snapshots (GSI2 Query), agents' partitions, aggregates and
# series (Query), cohorts (GetItem), agent profiles and markets (BatchGetItem). A snapshot pass
# adds its writes: changed markets (UpdateItem), raw and hourly snapshots and series points
# (BatchWriteItem), each agent's latest snapshot (a conditional PutItem).
_SNAPSHOT_AND_PUBLISH = (
    "GetItem",
    "BatchGetItem",
    "Query",
    "UpdateItem",
    "PutItem",
    "BatchWriteItem",
)


def _publisher(
    *table: str,
    site_reads: tuple[str, ...] = (),
    site_commits: tuple[str, ...] = (),
    site_denies: tuple[str, ...] = (COMMITMENTS,),
) -> Grant:
    """A function that publishes the site: its own table actions, the reads every publish
    makes (both indexes, prompts and raw replies under decisions/*, the weekly universes), any
    page of the site bucket but the commitments it may not write, and its bookkeeping (absent
    before the first publish: a 404 needs ListBucket, which the weekly repair lists with too).
    It reads no file it published for readers."""
    return Grant(
        table=table,
        indexes=(GSI1, GSI2),
        audit_reads=(DECISIONS, UNIVERSES),
        site_reads=(BOOKKEEPING, *site_reads),
        site_writes=("*",),
        site_commits=site_commits,
        site_denies=site_denies,
        site_absent_keys=True,
    )


GRANTS: dict[str, Grant] = {
    # The lineup releases (Query of their partition; PutItem seeds release 1 on first use);
    # create_cohort: one transaction of conditional Puts (PutItem); get_cohort after losing the
    # race to a duplicate delivery (GetItem).
    "OpenCohort": Grant(table=("GetItem", "PutItem", "Query")),
    # active_cohorts (GSI1 Query), get_cohort (GetItem), agents (BatchGetItem); the universe is
    # looked up, read back on a rerun, or written, with each market's captured prices
    # (BatchWriteItem); under v1+panel the week's panel likewise, and its questions (PutItem).
    "Prepare": Grant(
        table=("GetItem", "BatchGetItem", "PutItem", "BatchWriteItem"),
        indexes=(GSI1,),
        audit_reads=(UNIVERSES, PANELS),
        audit_writes=(UNIVERSES, PANELS),
        audit_absent_keys=True,
    ),
    # get_agent, get_cohort, get_trade (GetItem); positions (Query); held markets
    # (BatchGetItem); the claim, checkpoint, finish and first-decision mark (UpdateItem);
    # apply_trade's transaction: Put trade, position and open guard, Update decision, agent,
    # aggregate and market, Delete the guard when a sell closes a position. The decision's
    # commitment (written once, retained; If-None-Match needs no read). v1+panel: the week's
    # panel (read back) and the decision's trade coherence (PutItem). The week's universe is
    # looked up before the claim (absent: 404, hence ListBucket on the audit bucket).
    "Decide": Grant(
        table=("GetItem", "BatchGetItem", "Query", "UpdateItem", "PutItem", "DeleteItem"),
        audit_reads=(UNIVERSES, PANELS),
        audit_writes=(DECISIONS,),
        audit_absent_keys=True,
        site_commits=(COMMITTED_DECISIONS,),
        reads_api_key=True,
    ),
    # decision_counts is pure; the run's root (its decisions by GetItem; written once,
    # retained), the committed objects the log misses (listed, read back) appended to it (the
    # log's one writer); then a snapshot pass and the site, as Snapshot. Never a decision's
    # commitment: those are Decide's alone.
    "Finalize": _publisher(
        *_SNAPSHOT_AND_PUBLISH,
        site_reads=(COMMITMENTS,),
        site_commits=(COMMITTED_RUNS,),
        site_denies=(COMMITTED_DECISIONS,),
    ),
    "Snapshot": _publisher(*_SNAPSHOT_AND_PUBLISH),
    # Markets to resolve and open positions per market (GSI1 Query), every position on a market
    # (GSI2 Query), market states (BatchGetItem, UpdateItem); apply_settlement's transaction
    # (Put settlement and position, Update agent, market and aggregate, Delete the open guard);
    # apply_scores (BatchGetItem, then a transaction: Put scores, Update aggregate and agent);
    # completing a cohort writes each agent's final, hourly and latest snapshots
    # (BatchWriteItem, PutItem), then the cohort (UpdateItem). No site: the next snapshot tick
    # publishes what it settled.
    "Resolve": Grant(table=(*_SNAPSHOT_AND_PUBLISH, "DeleteItem"), indexes=(GSI1, GSI2)),
}


@dataclass(frozen=True)
class Targets:
    """The resources the grants point at."""

    table: dynamodb.ITableV2
    audit: s3.IBucket
    site: s3.IBucket
    parameter_arn: str  # the SSM SecureString holding the OpenRouter key


def apply_grants(
    functions: Mapping[str, lambda_.IFunction],
    targets: Targets,
    grants: Mapping[str, Grant] = GRANTS,
) -> None:
    """Give every function its row, and refuse a function without one (or a row without a
    function): a new function must be granted deliberately, not by default."""
    if set(functions) != set(grants):
        raise ValueError(f"grants {sorted(grants)} do not match functions {sorted(functions)}")
    for name, grant in grants.items():
        function = functions[name]
        for statement in statements(grant, targets):
            function.add_to_role_policy(statement)
        if grant.reads_api_key:  # decrypted through SSM with the account's aws/ssm key
            function.add_to_role_policy(_allow(["ssm:GetParameter"], [targets.parameter_arn]))
    for statement in commitment_writers(functions, targets.site):
        targets.site.add_to_resource_policy(statement)


# Who alone may write each part of commitments/: (the function, the key patterns).
COMMITMENT_WRITERS = (
    ("Decide", (COMMITTED_DECISIONS,)),
    ("Finalize", (COMMITTED_RUNS, COMMITMENTS_LOG)),
)


def commitment_writers(
    functions: Mapping[str, lambda_.IFunction], site: s3.IBucket
) -> list[iam.PolicyStatement]:
    """The site bucket's word on commitments, for every principal (an operator's role or a
    function's alike): a decision's commitment is written by Decide's role only, a run's
    root and the log by Finalize's only. The roles' own policies agree; this holds even if
    one of them is widened by mistake."""
    found = []
    for name, patterns in COMMITMENT_WRITERS:
        role = functions[name].role
        if role is None:  # every function of the stack has one; an import would not
            raise ValueError(f"{name} has no role to name in the bucket policy")
        found.append(
            iam.PolicyStatement(
                effect=iam.Effect.DENY,
                principals=[iam.AnyPrincipal()],
                actions=["s3:PutObject"],
                resources=[site.arn_for_objects(p) for p in patterns],
                conditions={"ArnNotEquals": {"aws:PrincipalArn": role.role_arn}},
            )
        )
    return found


def statements(grant: Grant, targets: Targets) -> list[iam.PolicyStatement]:
    """The policy statements of one row (the key's parameter aside)."""
    return [
        *_table_statements(grant, targets.table),
        *_bucket_statements(
            targets.audit,
            reads=grant.audit_reads,
            commits=grant.audit_writes,
            absent_keys=grant.audit_absent_keys,
        ),
        *_bucket_statements(
            targets.site,
            reads=grant.site_reads,
            writes=grant.site_writes,
            commits=grant.site_commits,
            absent_keys=grant.site_absent_keys,
        ),
        *(
            iam.PolicyStatement(
                effect=iam.Effect.DENY,
                actions=["s3:PutObject"],
                resources=[targets.site.arn_for_objects(p) for p in grant.site_denies],
            )
            for _ in grant.site_denies[:1]
        ),
    ]


def _allow(actions: list[str], resources: list[str]) -> iam.PolicyStatement:
    return iam.PolicyStatement(actions=actions, resources=resources)


def _table_statements(grant: Grant, table: dynamodb.ITableV2) -> list[iam.PolicyStatement]:
    found = []
    if grant.table:
        found.append(_allow([f"dynamodb:{a}" for a in grant.table], [table.table_arn]))
    if grant.indexes:
        indexes = [f"{table.table_arn}/index/{name}" for name in grant.indexes]
        found.append(_allow(["dynamodb:Query"], indexes))
    return found


def _bucket_statements(
    bucket: s3.IBucket,
    *,
    reads: tuple[str, ...] = (),
    writes: tuple[str, ...] = (),
    commits: tuple[str, ...] = (),
    absent_keys: bool = False,
) -> list[iam.PolicyStatement]:
    """One statement per key pattern, with the object actions allowed on it: GetObject to
    read, PutObject to write, and PutObjectRetention too where the write is retained."""
    actions: dict[str, list[str]] = {}
    for pattern in reads:
        actions.setdefault(pattern, []).append("s3:GetObject")
    for pattern in writes:
        actions.setdefault(pattern, []).append("s3:PutObject")
    for pattern in commits:
        actions.setdefault(pattern, []).extend(["s3:PutObject", "s3:PutObjectRetention"])
    found = [_allow(acts, [bucket.arn_for_objects(p)]) for p, acts in actions.items()]
    if absent_keys:
        found.append(_allow(["s3:ListBucket"], [bucket.bucket_arn]))
    return found
