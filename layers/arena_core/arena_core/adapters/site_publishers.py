"""Site publishers: a local folder (the demo) and S3 (production), each a ``Bucket`` under the
change-only writer of ``adapters/manifest.py`` (manifest, lease, repair)."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from arena_core.adapters.manifest import ROOT, Bucket, ManifestPublisher
from arena_core.errors import ConflictError, InvalidIdError, PersistenceError
from arena_core.ports.publisher import INTERNAL, cache_control, content_type, is_internal, site_key

__all__ = [
    "EARLIER_ROOTS", "LEGACY_MANIFEST", "ROOT", "LocalFolderPublisher", "S3SitePublisher",
    "state_folder",
]  # fmt: skip

# Where sites published before the bookkeeping moved under INTERNAL kept their manifest (never
# read now; CloudFront is still refused it: infra/constructs/site.py).
LEGACY_MANIFEST = ".site-manifest.json"
# The roots of the bookkeeping of sites published by earlier versions (never read now: a site
# found with one is published anew; the demo still knows its own output folder by them).
EARLIER_ROOTS = (f"{INTERNAL}manifest/index.json", f"{INTERNAL}manifest.json")
LOST_RACE = ("PreconditionFailed", "ConditionalRequestConflict")


def state_folder(root: Path) -> Path:
    """Where a site folder's bookkeeping lives: beside it (``site`` -> ``site.state``)."""
    return root.with_name(f"{root.name}.state")


def _md5(body: bytes) -> str:
    return hashlib.md5(body, usedforsecurity=False).hexdigest()  # what S3's ETag is


_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _lock_of(folder: Path) -> threading.Lock:
    """One lock per (resolved) folder in this process: conditional writes are compared and
    made under it."""
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(folder, threading.Lock())


class LocalFolderBucket(Bucket):
    """Writes under ``root`` only: every key is a site key (``site_key``) and is checked again,
    resolved, to stay inside the folder (a symlink inside it cannot lead out). The bookkeeping
    (keys under ``INTERNAL``) goes to ``state`` beside it, never in the site."""

    def __init__(self, root: Path, state: Path | None = None) -> None:
        self._root = root
        self._state = state or state_folder(root)
        # The two folders resolved once (a key's path is resolved at every use: a symlink
        # planted inside must not lead out; the folders themselves are the operator's choice).
        self._resolved = {False: root.resolve(), True: self._state.resolve()}

    @property
    def identity(self) -> str:
        return f"folder:{self._resolved[False]}"

    def _target(self, path: str) -> Path:
        key = site_key(path)
        internal = is_internal(key)
        base = self._state if internal else self._root
        target = base / key.removeprefix(INTERNAL)
        if not target.resolve().is_relative_to(self._resolved[internal]):
            raise InvalidIdError(f"the key {path[:80]!r} leads out of {base}")
        return target

    def get(self, key: str) -> tuple[bytes, str] | None:
        try:
            target = self._target(key)
        except InvalidIdError:
            return None
        if not target.is_file():
            return None
        body = target.read_bytes()
        return body, _md5(body)

    def put(self, key: str, body: bytes, *, match: str | None = None, absent: bool = False) -> str:
        target = self._target(key)
        with _lock_of(self._resolved[is_internal(key)]):
            if match is not None or absent:
                current = self.get(key)
                if (absent and current is not None) or (
                    match is not None and (current is None or current[1] != match)
                ):
                    raise ConflictError(f"{key}: changed since it was read")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(body)
        return _md5(body)

    def listing(self) -> dict[str, str]:
        found = {}
        for folder, _, names in os.walk(self._root):
            for name in names:
                path = Path(folder, name)
                key = path.relative_to(self._root).as_posix()
                found[key] = _md5(path.read_bytes())
        return found


class LocalFolderPublisher(ManifestPublisher):
    def __init__(self, root: Path, state: Path | None = None) -> None:
        super().__init__(LocalFolderBucket(root, state))


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


class S3Bucket(Bucket):
    def __init__(self, client: Any, bucket: str) -> None:
        self._client = client
        self._bucket = bucket

    @property
    def identity(self) -> str:
        return f"s3:{self._bucket}"

    def get(self, key: str) -> tuple[bytes, str] | None:
        try:
            found = self._client.get_object(Bucket=self._bucket, Key=key)
            return found["Body"].read(), str(found["ETag"]).strip('"')
        except ClientError as exc:
            if _code(exc) in ("NoSuchKey", "404"):
                return None
            raise PersistenceError(f"cannot read {key} from the site: {exc}") from exc
        except BotoCoreError as exc:
            raise PersistenceError(f"cannot read {key} from the site: {exc}") from exc

    def put(self, key: str, body: bytes, *, match: str | None = None, absent: bool = False) -> str:
        condition = {"IfMatch": match} if match is not None else {}
        if absent:
            condition = {"IfNoneMatch": "*"}
        try:
            found = self._client.put_object(
                Bucket=self._bucket,
                Key=key,
                Body=body,
                ContentType=content_type(key),
                CacheControl=cache_control(key),
                **condition,
            )
        except ClientError as exc:
            if _code(exc) in LOST_RACE:
                raise ConflictError(f"{key}: changed since it was read") from exc
            raise PersistenceError(f"cannot publish the site: {exc}") from exc
        except BotoCoreError as exc:
            raise PersistenceError(f"cannot publish the site: {exc}") from exc
        return str(found["ETag"]).strip('"')

    def listing(self) -> dict[str, str]:
        """Every readers' object and its ETag, 1,000 a request."""
        found: dict[str, str] = {}
        asked: dict[str, str] = {"Bucket": self._bucket}
        try:
            while True:
                page = self._client.list_objects_v2(**asked)
                for item in page.get("Contents", ()):
                    if not is_internal(item["Key"]):
                        found[item["Key"]] = str(item["ETag"]).strip('"')
                if not page.get("IsTruncated"):
                    return found
                asked["ContinuationToken"] = page["NextContinuationToken"]
        except (ClientError, BotoCoreError) as exc:
            raise PersistenceError(f"cannot list the site: {exc}") from exc


class S3SitePublisher(ManifestPublisher):
    def __init__(self, client: Any, bucket: str) -> None:
        super().__init__(S3Bucket(client, bucket))
