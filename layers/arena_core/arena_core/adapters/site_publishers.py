"""Site publishers: a local folder (the demo) and S3 (production), both change-only.

Each keeps a manifest of content digests (``.site-manifest.json``), so deciding what changed
costs one read, not one request per object.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from arena_core.errors import InvalidIdError, PersistenceError
from arena_core.ports.publisher import (
    INTERNAL,
    PublishReport,
    SitePublisher,
    cache_control,
    content_type,
    digest,
    is_internal,
    site_key,
)

MANIFEST = f"{INTERNAL}manifest.json"
LEGACY_MANIFEST = ".site-manifest.json"  # where sites published before kept it (read, moved)


def upload_order(paths: Iterable[str]) -> list[str]:
    """Readers' files first, the bookkeeping under ``INTERNAL`` last (the manifest after
    both): the bookkeeping records what was published (the carried state says which completed
    cohorts' positions are in ``data/position_returns.json``), so a publication failing
    half-way must never have written it ahead of the files it describes."""
    return sorted(paths, key=lambda path: (path.startswith(INTERNAL), path))


def _changed(files: Mapping[str, bytes], known: Mapping[str, str]) -> dict[str, str]:
    found = {path: digest(body) for path, body in files.items()}
    return {path: hashed for path, hashed in found.items() if known.get(path) != hashed}


def manifest_body(known: Mapping[str, str], changed: Mapping[str, str]) -> bytes:
    """The manifest after a publication, its paths in order."""
    return json.dumps({**known, **changed}, sort_keys=True).encode()


def state_folder(root: Path) -> Path:
    """Where a site folder's bookkeeping lives: beside it (``site`` -> ``site.state``)."""
    return root.with_name(f"{root.name}.state")


class LocalFolderPublisher(SitePublisher):
    """Writes under ``root`` only: every key is a site key (``site_key``) and is checked
    again, resolved, to stay inside the folder (a symlink inside it cannot lead out). The
    bookkeeping (keys under ``INTERNAL``) goes to ``state`` beside it, never in the site."""

    def __init__(self, root: Path, state: Path | None = None) -> None:
        self._root = root
        self._state = state or state_folder(root)
        self._lock = threading.Lock()

    def _target(self, path: str) -> Path:
        key = site_key(path)
        base = self._state if is_internal(key) else self._root
        target = base / key.removeprefix(INTERNAL)
        if not target.resolve().is_relative_to(base.resolve()):
            raise InvalidIdError(f"the key {path[:80]!r} leads out of {base}")
        return target

    def published(self) -> dict[str, str]:
        manifest = self._target(MANIFEST)
        if not manifest.exists():
            return {}
        loaded: dict[str, str] = json.loads(manifest.read_text())
        return loaded

    def publish(
        self, files: Mapping[str, bytes], known: Mapping[str, str] | None = None
    ) -> PublishReport:
        with self._lock:
            known = self.published() if known is None else known
            changed = _changed(files, known)
            targets = {
                path: self._target(path) for path in upload_order(changed)
            }  # all, then write
            for path, target in targets.items():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(files[path])
            self._root.mkdir(parents=True, exist_ok=True)
            manifest = self._target(MANIFEST)
            manifest.parent.mkdir(parents=True, exist_ok=True)
            manifest.write_bytes(manifest_body(known, changed))
        return PublishReport(tuple(sorted(changed)), len(files) - len(changed))

    def read(self, path: str) -> bytes | None:
        try:
            target = self._target(path)
        except InvalidIdError:
            return None
        return target.read_bytes() if target.is_file() else None


class S3SitePublisher(SitePublisher):
    """Reads back only what publications carry over (the manifest and files under data/)."""

    def __init__(self, client: Any, bucket: str) -> None:
        self._client = client
        self._bucket = bucket

    def published(self) -> dict[str, str]:
        body = self.read(MANIFEST)
        if body is None:  # a site published before the manifest moved: its old one, once
            body = self.read(LEGACY_MANIFEST)
        if body is None:
            return {}
        loaded: dict[str, str] = json.loads(body)
        return loaded

    def publish(
        self, files: Mapping[str, bytes], known: Mapping[str, str] | None = None
    ) -> PublishReport:
        known = self.published() if known is None else known
        changed = _changed(files, known)
        for path in changed:
            site_key(path)  # every key checked before the first upload
        try:
            for path in upload_order(changed):
                self._client.put_object(
                    Bucket=self._bucket,
                    Key=path,
                    Body=files[path],
                    ContentType=content_type(path),
                    CacheControl=cache_control(path),
                )
            self._client.put_object(
                Bucket=self._bucket,
                Key=MANIFEST,
                ContentType="application/json",
                Body=manifest_body(known, changed),
            )
        except (ClientError, BotoCoreError) as exc:
            raise PersistenceError(f"cannot publish the site: {exc}") from exc
        return PublishReport(tuple(sorted(changed)), len(files) - len(changed))

    def read(self, path: str) -> bytes | None:
        try:
            body: bytes = self._client.get_object(Bucket=self._bucket, Key=path)["Body"].read()
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise PersistenceError(f"cannot read {path} from the site: {exc}") from exc
        return body
