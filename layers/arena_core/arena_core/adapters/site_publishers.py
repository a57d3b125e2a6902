"""Site publishers: a local folder (the demo) and S3 (production), both change-only.

Each keeps a manifest of content digests (``ports/manifest.py``, in parts under
``_internal/manifest/``), so deciding what changed costs a few small reads, not one request per
object, and a tick reads and writes what it changes, not the whole site's list.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from arena_core.errors import InvalidIdError, PersistenceError
from arena_core.ports.manifest import (
    INDEX,
    LEGACY_MANIFEST,
    MANIFEST,
    ManifestPublisher,
    upload_order,
)
from arena_core.ports.publisher import (
    INTERNAL,
    PublishReport,
    cache_control,
    content_type,
    is_internal,
    site_key,
)

__all__ = [
    "INDEX",
    "LEGACY_MANIFEST",
    "MANIFEST",
    "LocalFolderPublisher",
    "S3SitePublisher",
    "state_folder",
    "upload_order",
]


def state_folder(root: Path) -> Path:
    """Where a site folder's bookkeeping lives: beside it (``site`` -> ``site.state``)."""
    return root.with_name(f"{root.name}.state")


class LocalFolderPublisher(ManifestPublisher):
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

    def check(self, path: str) -> None:
        super().check(path)
        self._target(path)

    def put(self, path: str, body: bytes) -> None:
        target = self._target(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)

    def publish(
        self, files: Mapping[str, bytes], known: Mapping[str, str] | None = None
    ) -> PublishReport:
        with self._lock:  # one publication at a time writes into the folder
            self._root.mkdir(parents=True, exist_ok=True)
            return super().publish(files, known)

    def read(self, path: str) -> bytes | None:
        try:
            target = self._target(path)
        except InvalidIdError:
            return None
        return target.read_bytes() if target.is_file() else None


class S3SitePublisher(ManifestPublisher):
    """Reads back only what publications carry over (the manifest and files under data/)."""

    def __init__(self, client: Any, bucket: str) -> None:
        self._client = client
        self._bucket = bucket

    def put(self, path: str, body: bytes) -> None:
        try:
            self._client.put_object(
                Bucket=self._bucket,
                Key=path,
                Body=body,
                ContentType=content_type(path),
                CacheControl=cache_control(path),
            )
        except (ClientError, BotoCoreError) as exc:
            raise PersistenceError(f"cannot publish the site: {exc}") from exc

    def read(self, path: str) -> bytes | None:
        try:
            body: bytes = self._client.get_object(Bucket=self._bucket, Key=path)["Body"].read()
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise PersistenceError(f"cannot read {path} from the site: {exc}") from exc
        return body
