"""Template assertions for the commitments: Object Lock where they live (and where the audit
records live), retention as deployment settings, and a bucket that refuses to rewrite them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk.assertions import Template

from infra.app import build_app
from infra.stack import DEFAULT_LOCK_DAYS, object_lock_days, object_lock_mode
from tests.infra.conftest import FAST


def bucket(raw: dict[str, Any], prefix: str) -> dict[str, Any]:
    (found,) = [
        v["Properties"]
        for k, v in raw["Resources"].items()
        if v["Type"] == "AWS::S3::Bucket" and k.startswith(prefix)
    ]
    return found


def site_policy(raw: dict[str, Any]) -> list[dict[str, Any]]:
    (found,) = [
        v["Properties"]["PolicyDocument"]["Statement"]
        for k, v in raw["Resources"].items()
        if v["Type"] == "AWS::S3::BucketPolicy" and k.startswith("StorageSite")
    ]
    return found


def environments(raw: dict[str, Any]) -> list[dict[str, str]]:
    return [
        v["Properties"]["Environment"]["Variables"]
        for v in raw["Resources"].values()
        if v["Type"] == "AWS::Lambda::Function" and "ARENA_TABLE_NAME" in json.dumps(v)
    ]


def test_object_lock_is_enabled_where_the_commitments_and_audit_records_live(
    raw: dict[str, Any],
) -> None:
    # Given the synthesized template
    for prefix in ("StorageSite", "StorageAudit"):
        props = bucket(raw, prefix)
        # Then both buckets are created with Object Lock, which needs versioning
        assert props["ObjectLockEnabled"] is True, prefix
        assert props["VersioningConfiguration"] == {"Status": "Enabled"}, prefix
        # and neither has a default retention: the site's pages are overwritten every
        # publication, so retention is set per object by the code that writes them
        assert "Rule" not in props.get("ObjectLockConfiguration", {}), prefix
    # The site's overwritten pages do not pile up as old versions
    rules = bucket(raw, "StorageSite")["LifecycleConfiguration"]["Rules"]
    assert {"NoncurrentVersionExpiration": {"NoncurrentDays": 1}, "Status": "Enabled"} in rules
    # The access-log bucket is not locked (S3 cannot deliver logs into one that is)
    assert "ObjectLockEnabled" not in bucket(raw, "StorageAccessLogs")


def test_retention_mode_and_days_reach_every_function(raw: dict[str, Any]) -> None:
    envs = environments(raw)
    assert len(envs) == 6
    assert {e["ARENA_OBJECT_LOCK_MODE"] for e in envs} == {"GOVERNANCE"}
    assert {e["ARENA_OBJECT_LOCK_DAYS"] for e in envs} == {str(DEFAULT_LOCK_DAYS)}


def commitment_denies(raw: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The site policy's Deny statements on commitments/, by the resources they name."""
    return {
        json.dumps(s["Resource"]): s
        for s in site_policy(raw)
        if s["Effect"] == "Deny" and "/commitments/" in json.dumps(s["Resource"])
    }


def test_the_site_bucket_refuses_to_rewrite_or_delete_commitments(raw: dict[str, Any]) -> None:
    denies = {r: s for r, s in commitment_denies(raw).items() if not writers_only(s)}
    assert len(denies) == 3
    committed = next(s for r, s in denies.items() if "/commitments/decisions/*" in r)
    assert "/commitments/runs/*" in json.dumps(committed["Resource"])
    assert committed["Action"] == "s3:PutObject"
    assert committed["Principal"] == {"AWS": "*"}
    # a write that could replace an existing object (no If-None-Match) is refused
    assert committed["Condition"] == {"Null": {"s3:if-none-match": "true"}}
    log = next(s for r, s in denies.items() if "/commitments/log.jsonl" in r)
    assert log["Condition"] == {"Null": {"s3:if-match": "true", "s3:if-none-match": "true"}}
    deletes = next(s for r, s in denies.items() if r.endswith('/commitments/*"]]}'))
    assert set(deletes["Action"]) == {"s3:DeleteObject", "s3:DeleteObjectVersion"}
    assert "Condition" not in deletes  # no delete marker can hide a commitment


def writers_only(statement: dict[str, Any]) -> bool:
    return "ArnNotEquals" in statement.get("Condition", {})


def role_of(raw: dict[str, Any], function: str) -> str:
    (found,) = [
        v["Properties"]["Role"]["Fn::GetAtt"][0]
        for k, v in raw["Resources"].items()
        if v["Type"] == "AWS::Lambda::Function" and k.startswith(f"Functions{function}")
    ]
    return str(found)


def writers(raw: dict[str, Any]) -> dict[str, list[str]]:
    """Role logical id -> the commitment keys only it may write (the bucket's word)."""
    found: dict[str, list[str]] = {}
    for statement in commitment_denies(raw).values():
        if not writers_only(statement):
            continue
        assert statement["Effect"] == "Deny" and statement["Action"] == "s3:PutObject"
        assert statement["Principal"] == {"AWS": "*"}  # every principal, operators included
        role = statement["Condition"]["ArnNotEquals"]["aws:PrincipalArn"]["Fn::GetAtt"][0]
        resources = statement["Resource"]
        keys = [
            r["Fn::Join"][1][-1]
            for r in (resources if isinstance(resources, list) else [resources])
        ]
        found[role] = sorted(keys)
    return found


@pytest.mark.parametrize("retain", [True, False])
def test_only_decide_commits_decisions_and_only_finalize_writes_runs_and_the_log(
    raw: dict[str, Any], retain: bool
) -> None:
    """Before: the snapshot, resolve and finalize roles could write anywhere in the site
    bucket, commitments included, and the log's append-only rule was the writer's code only.
    The bucket now refuses, to every principal but the one role, each part of commitments/."""
    template = raw if retain else synthesized({"arena:retainData": False})
    assert writers(template) == {
        role_of(template, "Decide"): ["/commitments/decisions/*"],
        role_of(template, "Finalize"): ["/commitments/log.jsonl", "/commitments/runs/*"],
    }


def synthesized(context: dict[str, Any]) -> dict[str, Any]:
    _, stack = build_app(nag=False, context={**FAST, **context})
    return dict(Template.from_stack(stack).to_json())


def test_settings_come_from_context_and_are_checked_at_synth() -> None:
    # Given context values, when the stack is built, then they reach the functions
    raw = synthesized({"arena:objectLockMode": "COMPLIANCE", "arena:objectLockDays": 400})
    assert {
        (e["ARENA_OBJECT_LOCK_MODE"], e["ARENA_OBJECT_LOCK_DAYS"]) for e in environments(raw)
    } == {("COMPLIANCE", "400")}
    # Without retained data: no retention by default and no denied deletes, so that cdk
    # destroy can empty the buckets; Object Lock itself stays enabled
    loose = synthesized({"arena:retainData": False})
    assert {e["ARENA_OBJECT_LOCK_DAYS"] for e in environments(loose)} == {"0"}
    assert all(writers_only(s) for s in commitment_denies(loose).values())
    assert bucket(loose, "StorageSite")["ObjectLockEnabled"] is True
    assert object_lock_mode(None) == "GOVERNANCE"
    # A typo fails the synth, not a Lambda
    with pytest.raises(ValueError, match="objectLockMode"):
        object_lock_mode("governance-ish")
    with pytest.raises(ValueError, match="objectLockDays"):
        object_lock_days("-1", retain=True)
