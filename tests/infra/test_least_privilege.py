"""Least privilege, read from the synthesized template: what each function's role may do.

Every Allow statement of a function's role is flattened to ``(action, resource)`` pairs, with
the resources rendered readably (``Table/index/GSI1``, ``Audit/decisions/*``, ``Site``). The
expected sets below are written out by hand from the code paths of each handler (see
``infra/constructs/grants.py`` for the reasons), so a grant that widens fails here, and
``test_grants_cover_every_call_the_handlers_make`` checks the other direction: running the
handlers on embedded AWS never needs more than the template grants.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from aws_cdk.assertions import Template
from botocore.exceptions import ClientError

from arena_core import bootstrap
from arena_core.adapters.dynamodb import create_table_kwargs, dynamo_stores
from arena_core.adapters.object_lock import ObjectLock
from arena_core.adapters.s3_blobs import S3BlobStore
from arena_core.adapters.s3_commitments import S3CommitmentStore
from arena_core.adapters.site_publishers import S3SitePublisher
from arena_core.constants import ObjectLockMode
from arena_core.domain.market import ResolutionKind
from arena_core.ports.clock import FixedClock
from arena_core.settings import ArenaSettings
from arena_local.workflow import LambdaContext
from functions.decide import handler as decide_handler
from functions.open_cohort import handler as open_cohort_handler
from functions.resolve import handler as resolve_handler
from functions.snapshot import handler as snapshot_handler
from infra.app import build_app
from infra.nag import ANY_RESOURCE, RULES, wildcard_resources
from tests.infra.conftest import FAST
from tests.support.aws import FAKE_ENV, TABLE, dynamo_client, embedded_aws
from tests.support.builders import binary, resolved
from tests.support.markets import StaticMarketSource

FUNCTIONS = ("OpenCohort", "Prepare", "Decide", "Finalize", "Snapshot", "Resolve")
PUBLISHERS = ("Finalize", "Snapshot")
Grants = dict[str, set[str]]  # rendered resource -> actions allowed on it

# What publishing the site reads (cohorts by status on GSI1, families on GSI2, partitions,
# profiles and markets by key) plus what a snapshot pass writes (markets, snapshots, series).
SNAPSHOT_AND_PUBLISH: Grants = {
    "Table": {
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:Query",
        "dynamodb:UpdateItem",
        "dynamodb:PutItem",
        "dynamodb:BatchWriteItem",
    },
    "Table/index/GSI1": {"dynamodb:Query"},
    "Table/index/GSI2": {"dynamodb:Query"},
}
EXPECTED_DYNAMODB: dict[str, Grants] = {
    "OpenCohort": {"Table": {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query"}},
    "Prepare": {
        "Table": {
            "dynamodb:GetItem",
            "dynamodb:BatchGetItem",
            "dynamodb:PutItem",
            "dynamodb:BatchWriteItem",
        },
        "Table/index/GSI1": {"dynamodb:Query"},
    },
    "Decide": {
        "Table": {
            "dynamodb:GetItem",
            "dynamodb:BatchGetItem",
            "dynamodb:Query",
            "dynamodb:UpdateItem",
            "dynamodb:PutItem",
            "dynamodb:DeleteItem",
        }
    },
    "Finalize": SNAPSHOT_AND_PUBLISH,
    "Snapshot": SNAPSHOT_AND_PUBLISH,
    "Resolve": {
        **SNAPSHOT_AND_PUBLISH,
        "Table": SNAPSHOT_AND_PUBLISH["Table"] | {"dynamodb:DeleteItem"},
    },
}
PUBLISH_S3: Grants = {
    "Audit/decisions/*": {"s3:GetObject"},
    "Audit/universes/*": {"s3:GetObject"},
    "Site/*": {"s3:PutObject"},
    "Site/_internal/*": {"s3:GetObject"},  # its bookkeeping: no reader file is read back
    "Site": {"s3:ListBucket"},  # a 404 for bookkeeping not written yet; the weekly repair
}
RETAINED = {"s3:PutObject", "s3:PutObjectRetention"}  # a write under Object Lock retention
EXPECTED_S3: dict[str, Grants] = {
    "OpenCohort": {},
    "Prepare": {
        "Audit/universes/*": {"s3:GetObject"} | RETAINED,
        "Audit/panels/*": {"s3:GetObject"} | RETAINED,
        "Audit": {"s3:ListBucket"},
    },
    "Decide": {
        "Audit/universes/*": {"s3:GetObject"},
        "Audit/panels/*": {"s3:GetObject"},
        "Audit/decisions/*": RETAINED,
        "Audit": {"s3:ListBucket"},  # the week's universe, looked up before the claim
        "Site/commitments/decisions/*": RETAINED,  # and nothing else of the site
    },
    "Finalize": {
        **PUBLISH_S3,
        "Site/commitments/*": {"s3:GetObject"},
        "Site/commitments/runs/*": RETAINED,
    },
    "Snapshot": PUBLISH_S3,
    "Resolve": {},  # settles and completes; the snapshot ticks publish
}
# What grant_read_write_data gives: no function needs all of it.
READ_WRITE_DATA = {
    f"dynamodb:{a}"
    for a in (
        "BatchGetItem",
        "GetRecords",
        "GetShardIterator",
        "Query",
        "GetItem",
        "Scan",
        "ConditionCheckItem",
        "BatchWriteItem",
        "PutItem",
        "UpdateItem",
        "DeleteItem",
        "DescribeTable",
    )
}
NEVER = {"dynamodb:*", "dynamodb:Scan", "dynamodb:DeleteTable", "dynamodb:DescribeTable", "*"}


# --- reading the template -------------------------------------------------------------------


def _of_type(raw: dict[str, Any], kind: str) -> dict[str, Any]:
    return {k: v for k, v in raw["Resources"].items() if v["Type"] == kind}


def _one(raw: dict[str, Any], prefix: str, kind: str) -> str:
    (found,) = [k for k in _of_type(raw, kind) if k.startswith(prefix)]
    return found


def _names(raw: dict[str, Any]) -> dict[str, str]:
    """Logical id -> short name, for the resources grants point at."""
    return {
        _one(raw, "StorageTable", "AWS::DynamoDB::GlobalTable"): "Table",
        _one(raw, "StorageAudit", "AWS::S3::Bucket"): "Audit",
        _one(raw, "StorageSite", "AWS::S3::Bucket"): "Site",
    }


def render(resource: Any, names: dict[str, str]) -> str:
    """A resource as text: ``{"Fn::GetAtt": [table, "Arn"]}/index/*`` -> ``Table/index/*``."""
    if isinstance(resource, str):
        return resource
    ((function, argument),) = resource.items()
    if function == "Fn::GetAtt":
        return names.get(argument[0], ".".join(argument))
    if function == "Ref":
        return names.get(argument, argument)
    if function == "Fn::Join":
        separator, parts = argument
        return str(separator).join(render(p, names) for p in parts)
    raise AssertionError(f"unexpected intrinsic {function}")


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _role(raw: dict[str, Any], function: str) -> str:
    props = raw["Resources"][_one(raw, f"Functions{function}", "AWS::Lambda::Function")]
    return str(props["Properties"]["Role"]["Fn::GetAtt"][0])


def _statements(raw: dict[str, Any], role: str) -> Iterator[dict[str, Any]]:
    """Every statement that applies to ``role``: attached policies and inline ones."""
    for policy in _of_type(raw, "AWS::IAM::Policy").values():
        if {"Ref": role} in policy["Properties"]["Roles"]:
            yield from policy["Properties"]["PolicyDocument"]["Statement"]
    for inline in raw["Resources"][role]["Properties"].get("Policies", []):
        yield from inline["PolicyDocument"]["Statement"]


def allowed(raw: dict[str, Any], function: str, effect: str = "Allow") -> Grants:
    """What the function's role allows (or, with ``effect="Deny"``, refuses whatever else
    allows), as rendered resource -> actions."""
    names = _names(raw)
    found: Grants = {}
    for statement in _statements(raw, _role(raw, function)):
        assert statement["Effect"] in ("Allow", "Deny")
        if statement["Effect"] != effect:
            continue
        for resource in _listed(statement["Resource"]):
            actions = found.setdefault(render(resource, names), set())
            actions.update(_listed(statement["Action"]))
    return found


def denied(raw: dict[str, Any], function: str) -> Grants:
    return allowed(raw, function, "Deny")


def _service(grants: Grants, service: str) -> Grants:
    """The part of ``grants`` whose actions belong to ``service`` (``dynamodb``, ``s3``, ...)."""
    picked = {r: {a for a in acts if a.startswith(f"{service}:")} for r, acts in grants.items()}
    return {r: acts for r, acts in picked.items() if acts}


# --- the table --------------------------------------------------------------------------------


@pytest.mark.parametrize("function", FUNCTIONS)
def test_each_function_has_exactly_the_dynamodb_actions_its_code_calls(
    raw: dict[str, Any], function: str
) -> None:
    assert _service(allowed(raw, function), "dynamodb") == EXPECTED_DYNAMODB[function]


@pytest.mark.parametrize("function", FUNCTIONS)
def test_no_function_scans_administers_or_holds_the_whole_read_write_set(
    raw: dict[str, Any], function: str
) -> None:
    for resource, actions in allowed(raw, function).items():
        assert not actions & NEVER, (resource, actions & NEVER)
        assert not actions >= READ_WRITE_DATA, resource
        assert "dynamodb:ConditionCheckItem" not in actions  # no transaction has a check part


def test_indexes_only_where_an_index_is_queried(raw: dict[str, Any]) -> None:
    querying = {
        f for f in FUNCTIONS if any("/index/" in r for r in _service(allowed(raw, f), "dynamodb"))
    }
    assert querying == {"Prepare", "Finalize", "Snapshot", "Resolve"}
    for function in FUNCTIONS:
        for resource, actions in _service(allowed(raw, function), "dynamodb").items():
            assert "*" not in resource  # indexes by name, never every index
            if "/index/" in resource:
                assert actions == {"dynamodb:Query"}


# --- the buckets and the key ------------------------------------------------------------------


@pytest.mark.parametrize("function", FUNCTIONS)
def test_each_function_has_exactly_the_s3_access_its_code_needs(
    raw: dict[str, Any], function: str
) -> None:
    assert _service(allowed(raw, function), "s3") == EXPECTED_S3[function]


@pytest.mark.parametrize("function", PUBLISHERS)
def test_publishers_only_read_decisions_and_universes_in_the_audit_bucket(
    raw: dict[str, Any], function: str
) -> None:
    audit = {r: a for r, a in allowed(raw, function).items() if r.startswith("Audit")}
    assert audit == {
        "Audit/decisions/*": {"s3:GetObject"},
        "Audit/universes/*": {"s3:GetObject"},
    }


def test_prepare_cannot_write_decisions_and_decide_cannot_write_universes(
    raw: dict[str, Any],
) -> None:
    def writable(function: str) -> set[str]:
        grants = allowed(raw, function)
        return {r for r, a in grants.items() if any(x.startswith("s3:Put") for x in a)}

    assert writable("Prepare") == {"Audit/universes/*", "Audit/panels/*"}
    # Decide writes no page and not the log: only its decisions' commitments.
    assert writable("Decide") == {"Audit/decisions/*", "Site/commitments/decisions/*"}


@pytest.mark.parametrize(
    ("function", "refused"),
    [
        ("OpenCohort", {}),
        ("Prepare", {}),
        ("Decide", {}),
        ("Finalize", {"Site/commitments/decisions/*": {"s3:PutObject"}}),
        ("Snapshot", {"Site/commitments/*": {"s3:PutObject"}}),
        ("Resolve", {}),  # it publishes nothing: no site write to deny
    ],
)
def test_publishers_write_any_page_but_the_commitments_they_do_not_own(
    raw: dict[str, Any], function: str, refused: Grants
) -> None:
    """Before: Snapshot, Resolve and Finalize could write anywhere in the site bucket,
    commitments included. Now only Decide may create a decision's commitment and only
    Finalize may write the runs and the log; an explicit Deny beats their ``*``. (Resolve
    no longer writes the site at all: the next snapshot tick publishes what it settled.)"""
    assert denied(raw, function) == refused


def test_every_role_is_checked_against_its_denies(raw: dict[str, Any]) -> None:
    """The granted-and-not-denied check the handler run relies on."""
    grants, denies = allowed(raw, "Snapshot"), denied(raw, "Snapshot")
    assert _granted(grants, "s3:PutObject", "Site/index.html", denies)
    assert not _granted(grants, "s3:PutObject", "Site/commitments/log.jsonl", denies)
    assert not _granted(grants, "s3:PutObject", "Site/commitments/decisions/x/y.json", denies)
    grants, denies = allowed(raw, "Finalize"), denied(raw, "Finalize")
    assert _granted(grants, "s3:PutObject", "Site/commitments/log.jsonl", denies)
    assert _granted(grants, "s3:PutObject", "Site/commitments/runs/r.json", denies)
    assert not _granted(grants, "s3:PutObject", "Site/commitments/decisions/x/y.json", denies)


def test_only_committed_writes_may_set_a_retention(raw: dict[str, Any]) -> None:
    """PutObjectRetention where an object is written once and retained (audit records,
    commitments), never on the pages every publication overwrites."""
    retaining = {
        (function, resource)
        for function in FUNCTIONS
        for resource, actions in allowed(raw, function).items()
        if "s3:PutObjectRetention" in actions
    }
    assert retaining == {
        ("Prepare", "Audit/universes/*"),
        ("Prepare", "Audit/panels/*"),
        ("Decide", "Audit/decisions/*"),
        ("Decide", "Site/commitments/decisions/*"),
        ("Finalize", "Site/commitments/runs/*"),
    }


def test_only_decide_reads_the_openrouter_key(raw: dict[str, Any]) -> None:
    key = (
        "arn:AWS::Partition:ssm:AWS::Region:AWS::AccountId:"
        "parameter/forecaster-arena/openrouter-api-key"
    )
    for function in FUNCTIONS:
        assert _service(allowed(raw, function), "secretsmanager") == {}
        ssm = _service(allowed(raw, function), "ssm")
        assert ssm == ({key: {"ssm:GetParameter"}} if function == "Decide" else {})


def test_every_nag_acknowledgment_names_a_finding(
    synthesized: tuple[Template, dict[str, Any], Path],
) -> None:
    """No stale acknowledgment: each one in infra/nag.py matched a finding of this synth."""
    report = json.loads((synthesized[2].parent / "validation-report.json").read_text())
    used = {
        finding["acknowledgedId"]
        for plugin in report["pluginReports"]
        for finding in plugin.get("suppressedViolations", [])
    }
    _, stack = build_app(nag=False, context=FAST)
    assert set(RULES) | set(wildcard_resources(stack)) | {ANY_RESOURCE} == used


# --- the other direction: the handlers, run, need no more than the template grants ------------

SUNDAY = datetime(2026, 3, 1, tzinfo=UTC)
CONTEXT: Any = LambdaContext()
TRANSACTION_PARTS = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
}
S3_READS = {"get_object", "head_object"}
NOT_FOUND = {"NoSuchKey", "404", "NotFound"}


class Recorder:
    """Wraps a boto3 client; records each call as the IAM action and resource it needs,
    under the name of the function running (``current``)."""

    def __init__(self, client: Any, needs: dict[str, set[tuple[str, str]]]) -> None:
        self._client = client
        self._needs = needs
        self.current = ""

    def _need(self, action: str, resource: str) -> None:
        self._needs.setdefault(self.current, set()).add((action, resource))

    def __getattr__(self, operation: str) -> Any:
        method = getattr(self._client, operation)
        if not callable(method):
            return method

        def call(**kwargs: Any) -> Any:
            self._record(operation, kwargs)
            try:
                return method(**kwargs)
            except ClientError as exc:
                # S3 answers "absent" (404) only to a caller allowed to list the bucket.
                if operation in S3_READS and exc.response["Error"]["Code"] in NOT_FOUND:
                    self._need("s3:ListBucket", kwargs["Bucket"].capitalize())
                raise

        return call

    def _record(self, operation: str, kwargs: dict[str, Any]) -> None:
        if operation in S3_READS:
            self._need("s3:GetObject", f"{kwargs['Bucket'].capitalize()}/{kwargs['Key']}")
        elif operation == "put_object":
            key = f"{kwargs['Bucket'].capitalize()}/{kwargs['Key']}"
            self._need("s3:PutObject", key)
            if "ObjectLockMode" in kwargs or "ObjectLockRetainUntilDate" in kwargs:
                self._need("s3:PutObjectRetention", key)
        elif operation == "list_objects_v2":
            self._need("s3:ListBucket", kwargs["Bucket"].capitalize())
        elif operation == "transact_write_items":
            for item in kwargs["TransactItems"]:
                ((part, _),) = item.items()
                self._need(f"dynamodb:{TRANSACTION_PARTS[part]}", "Table")
        else:
            action = "".join(word.capitalize() for word in operation.split("_"))
            index = kwargs.get("IndexName")
            self._need(f"dynamodb:{action}", f"Table/index/{index}" if index else "Table")


@dataclass
class Recording:
    """The two recording clients the handlers run on, and what they recorded."""

    dynamodb: Recorder
    s3: Recorder
    needs: dict[str, set[tuple[str, str]]]
    methodology: str = "v1"

    def running(self, function: str) -> None:
        self.dynamodb.current = self.s3.current = function


@pytest.fixture(params=["v1", "v1+panel"])
def recording(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[Recording]:
    """The handlers wired to embedded AWS through recording clients, under each methodology
    (v1+panel draws a panel, registers and scores its questions, records coherence)."""
    for key, value in {**FAKE_ENV, "POWERTOOLS_TRACE_DISABLED": "true"}.items():
        monkeypatch.setenv(key, value)
    needs: dict[str, set[tuple[str, str]]] = {}
    with embedded_aws():
        client = dynamo_client()
        client.create_table(**create_table_kwargs(TABLE))
        s3 = boto3.client("s3")
        for bucket in ("audit", "site"):  # as deployed: Object Lock, retention per object
            s3.create_bucket(Bucket=bucket, ObjectLockEnabledForBucket=True)
        found = Recording(Recorder(client, needs), Recorder(s3, needs), needs, request.param)
        settings = ArenaSettings(
            table_name=TABLE,
            audit_bucket="audit",
            site_bucket="site",
            include_llms=False,
            methodology=request.param,
        )
        lock = ObjectLock(ObjectLockMode.GOVERNANCE, 1)
        injected = bootstrap.Injected(
            stores=dynamo_stores(found.dynamodb, TABLE),
            blobs=S3BlobStore(found.s3, "audit", lock=lock),
            market_source=StaticMarketSource(
                [  # closing within the panel's horizon: under v1+panel both are panel questions
                    binary(m, price).model_copy(update={"end_date": SUNDAY + timedelta(days=3)})
                    for m, price in (("m1", "0.40"), ("m2", "0.70"))
                ]
            ),
            publisher=S3SitePublisher(found.s3, "site"),
            commitments=S3CommitmentStore(found.s3, "site", lock=lock),
        )
        bootstrap.reset(bootstrap.Container(settings, clock=FixedClock(SUNDAY), injected=injected))
        yield found
        bootstrap.reset()


def _run_a_week(recording: Recording) -> None:
    """A week in the order the schedules run it: open, decide, snapshot, settle; each
    handler's calls recorded under its function's name."""
    container = bootstrap.container()
    clock, source = container.clock, container.market_source
    assert isinstance(clock, FixedClock) and isinstance(source, StaticMarketSource)
    recording.running("OpenCohort")
    for _ in range(2):  # delivered twice: the second finds the cohort already there
        open_cohort_handler.handler({"source": "schedule"}, CONTEXT)
    clock.set(SUNDAY + timedelta(minutes=5))
    recording.running("Prepare")
    prepared = decide_handler.prepare({}, CONTEXT)
    recording.running("Decide")
    results = [
        decide_handler.decide({**item, "execution_id": "run-1"}, CONTEXT)
        for item in prepared["items"]
    ]
    recording.running("Finalize")
    finalized = decide_handler.finalize(
        {"results": results, "run_at": prepared["run_at"], "execution_id": "run-1"}, CONTEXT
    )
    assert finalized["run_root"]  # the run was sealed: its root written, the log listed
    clock.set(SUNDAY + timedelta(minutes=10))
    recording.running("Snapshot")
    snapshot_handler.handler({"source": "schedule"}, CONTEXT)
    for market_id in ("m1", "m2"):
        source.set(resolved(source.markets[market_id], ResolutionKind.WINNER, "YES"))
    clock.set(SUNDAY + timedelta(hours=1))
    recording.running("Resolve")
    resolution = resolve_handler.handler({"source": "schedule"}, CONTEXT)
    assert resolution["completed_cohorts"]
    # The hour's first tick: the hour closed, everything site-wide and the completed cohort's
    # final pages published (the resolution pass publishes nothing)
    recording.running("Snapshot")
    assert snapshot_handler.handler({"source": "schedule"}, CONTEXT)["site_scope"] == "full"
    if container.settings.methodology == "v1+panel":  # the panel was drawn and scored
        assert container.stores.panel.scores("c2026-03-01")


def _granted(grants: Grants, action: str, resource: str, denies: Grants | None = None) -> bool:
    """Whether an IAM grant covers the call and no Deny refuses it (``*`` in a resource
    matches any characters)."""

    def covers(found: Grants) -> bool:
        return any(
            action in actions and fnmatch.fnmatchcase(resource, pattern)
            for pattern, actions in found.items()
        )

    return covers(grants) and not covers(denies or {})


def test_grants_cover_every_call_the_handlers_make(
    raw: dict[str, Any], recording: Recording
) -> None:
    _run_a_week(recording)
    assert set(recording.needs) == set(FUNCTIONS)
    for function, calls in recording.needs.items():
        grants, denies = allowed(raw, function), denied(raw, function)
        missing = sorted(c for c in calls if not _granted(grants, *c, denies))
        assert not missing, f"{function} calls what it is not granted: {json.dumps(missing)}"
    # The retained writes were really made with a retention (so the rows above were tested)
    retained = {
        (function, resource.split("/")[0] + "/" + resource.split("/")[1])
        for function, calls in recording.needs.items()
        for action, resource in calls
        if action == "s3:PutObjectRetention"
    }
    panel = {("Prepare", "Audit/panels")} if recording.methodology == "v1+panel" else set()
    assert (
        retained
        == {
            ("Prepare", "Audit/universes"),
            ("Decide", "Audit/decisions"),
            ("Decide", "Site/commitments"),
            ("Finalize", "Site/commitments"),
        }
        | panel
    )
