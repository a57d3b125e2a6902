"""The S3 adapters under Object Lock (moto): committed objects are written once and retained,
the log only changes by a conditional replace, audit records are retained when written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import botocore.session
import pytest
from botocore.exceptions import ClientError
from botocore.loaders import Loader

from arena_core.adapters.object_lock import ObjectLock, object_lock
from arena_core.adapters.s3_blobs import S3BlobStore
from arena_core.adapters.s3_commitments import IMMUTABLE, S3CommitmentStore
from arena_core.bootstrap import Container
from arena_core.constants import ObjectLockMode
from arena_core.errors import ConfigurationError, ConflictError, PersistenceError
from arena_core.ports.clock import FixedClock
from arena_core.settings import ArenaSettings
from tests.support.aws import embedded_aws

NOW = datetime(2030, 1, 1, tzinfo=UTC)  # the lock's clock: retention runs from here
LOCK = ObjectLock(ObjectLockMode.COMPLIANCE, 30, FixedClock(NOW))
KEY = "commitments/decisions/c.a.w001/" + "a" * 64 + ".json"


@pytest.fixture
def s3() -> Iterator[Any]:
    with embedded_aws():
        client = boto3.client("s3")
        client.create_bucket(Bucket="site", ObjectLockEnabledForBucket=True)
        client.create_bucket(Bucket="plain")
        yield client


def test_a_committed_object_is_written_once_with_its_retention(s3: Any) -> None:
    store = S3CommitmentStore(s3, "site", lock=LOCK)
    # When it is created, then created again with other bytes
    assert store.create(KEY, b"first") is True
    assert store.create(KEY, b"second") is False
    # Then the first bytes stay, retained under the deployment's mode until now + days
    stored = store.read(KEY)
    assert stored is not None and stored.body == b"first"
    head = s3.head_object(Bucket="site", Key=KEY)
    assert head["ObjectLockMode"] == "COMPLIANCE"
    assert head["ObjectLockRetainUntilDate"] == NOW + timedelta(days=30)
    assert head["CacheControl"] == IMMUTABLE
    assert head["ContentType"] == "application/json"
    # with the integrity checksum S3 requires of a write with Object Lock parameters
    checked = s3.head_object(Bucket="site", Key=KEY, ChecksumMode="ENABLED")
    assert checked["ChecksumSHA256"]
    # and nobody can delete the retained version (one version: nothing was overwritten)
    versions = s3.list_object_versions(Bucket="site", Prefix=KEY)["Versions"]
    assert len(versions) == 1
    with pytest.raises(ClientError):
        s3.delete_object(Bucket="site", Key=KEY, VersionId=versions[0]["VersionId"])


def test_the_log_is_replaced_only_from_the_version_read(s3: Any) -> None:
    store = S3CommitmentStore(s3, "site", lock=LOCK)
    log = "commitments/log.jsonl"
    assert store.read(log) is None
    store.replace(log, b"line 1\n", expected=None)
    with pytest.raises(ConflictError):  # someone wrote it first
        store.replace(log, b"other\n", expected=None)
    first = store.read(log)
    assert first is not None
    store.replace(log, b"line 1\nline 2\n", expected=first.tag)
    with pytest.raises(ConflictError):  # changed since ``first`` was read
        store.replace(log, b"line 1\nlost\n", expected=first.tag)
    latest = store.read(log)
    assert latest is not None and latest.body == b"line 1\nline 2\n"
    head = s3.head_object(Bucket="site", Key=log)
    assert "ObjectLockMode" not in head  # the log is a listing, not a committed object
    assert head["ContentType"] == "text/plain; charset=utf-8"


def test_keys_are_listed_by_prefix_across_pages(s3: Any) -> None:
    store = S3CommitmentStore(s3, "site")
    names = [f"commitments/runs/{i:04d}.json" for i in range(1003)]  # more than one page
    for name in names:
        store.create(name, b"{}")
    store.create("commitments/decisions/x/y.json", b"{}")
    assert store.keys("commitments/runs/") == names


def test_failures_are_persistence_errors(s3: Any) -> None:
    store = S3CommitmentStore(s3, "no-such-bucket")
    with pytest.raises(PersistenceError):
        store.create(KEY, b"x")
    with pytest.raises(PersistenceError):
        store.keys("commitments/")


def test_audit_records_are_retained_when_a_lock_is_set(s3: Any) -> None:
    retained = S3BlobStore(s3, "site", lock=LOCK)
    retained.put("decisions/d/claim-1/prompt.txt", b"prompt", content_type="text/plain")
    head = s3.head_object(Bucket="site", Key="decisions/d/claim-1/prompt.txt")
    assert head["ObjectLockMode"] == "COMPLIANCE"
    plain = S3BlobStore(s3, "plain")
    plain.put("universes/week.json", b"[]")
    assert "ObjectLockMode" not in s3.head_object(Bucket="plain", Key="universes/week.json")


def test_no_mode_or_zero_days_means_no_retention() -> None:
    assert object_lock(None, 30) is None
    assert object_lock(ObjectLockMode.GOVERNANCE, 0) is None
    found = object_lock(ObjectLockMode.GOVERNANCE, 7)
    assert found is not None and found.put_arguments()["ObjectLockMode"] == "GOVERNANCE"


def _client_of_an_older_sdk(tmp: Path) -> Any:
    """An S3 client on botocore's model as it was before conditional writes: PutObject
    without IfMatch and IfNoneMatch (what an older Lambda runtime's copy knows)."""
    session = botocore.session.get_session()
    loader = session.get_component("data_loader")
    version = loader.determine_latest_version("s3", "service-2")
    model = loader.load_service_model("s3", "service-2", version)
    for name in ("IfMatch", "IfNoneMatch"):
        model["shapes"]["PutObjectRequest"]["members"].pop(name)
    folder = tmp / "s3" / version
    folder.mkdir(parents=True)
    (folder / "service-2.json").write_text(json.dumps(model))
    session.register_component("data_loader", Loader(extra_search_paths=[str(tmp)]))
    return session.create_client("s3", region_name="us-east-1")


def test_an_sdk_without_conditional_writes_is_refused_before_anything_is_written(
    s3: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a runtime whose botocore predates S3 conditional writes, every decision failed after
    its trades were written (the commitment's put raised): the store now refuses to start."""
    older = _client_of_an_older_sdk(tmp_path)
    with pytest.raises(
        ConfigurationError, match=r"cannot send S3 conditional writes .*IfNoneMatch"
    ):
        S3CommitmentStore(older, "site")
    # Through the container, as a cold start of Decide or Finalize builds it
    monkeypatch.setattr(boto3, "client", lambda service, **_: older)
    settings = ArenaSettings(table_name="t", audit_bucket="a", site_bucket="site")
    with pytest.raises(ConfigurationError):
        Container(settings).commitments  # noqa: B018 - the property builds the store
    S3CommitmentStore(s3, "site")  # this SDK's client has them
