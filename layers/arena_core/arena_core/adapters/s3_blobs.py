"""The blob store on S3: audit blobs (prompts, raw responses, market universes) by key, each
retained under the deployment's Object Lock settings when it is written (``object_lock``)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from arena_core.adapters.object_lock import ObjectLock, lock_arguments
from arena_core.errors import NotFoundError, PersistenceError
from arena_core.ports.blob_store import BlobStore


class S3BlobStore(BlobStore):
    """References are ``s3://bucket/key`` so an item names exactly where its blob lives."""

    def __init__(
        self, client: Any, bucket: str, *, prefix: str = "", lock: ObjectLock | None = None
    ) -> None:
        self._client = client
        self._bucket = bucket
        self._prefix = prefix.strip("/")
        self._lock = lock

    def _key(self, key: str) -> str:
        return f"{self._prefix}/{key}" if self._prefix else key

    def put(self, key: str, body: bytes, *, content_type: str = "application/json") -> str:
        full = self._key(key)
        try:
            self._client.put_object(
                Bucket=self._bucket,
                Key=full,
                Body=body,
                ContentType=content_type,
                **lock_arguments(self._lock),
            )
        except (ClientError, BotoCoreError) as exc:
            raise PersistenceError(f"cannot store blob {full}: {exc}") from exc
        return f"s3://{self._bucket}/{full}"

    def find(self, key: str) -> str | None:
        full = self._key(key)
        try:
            self._client.head_object(Bucket=self._bucket, Key=full)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
                return None
            raise PersistenceError(f"cannot look up blob {full}: {exc}") from exc
        return f"s3://{self._bucket}/{full}"

    def get(self, ref: str) -> bytes:
        if not ref.startswith(f"s3://{self._bucket}/"):
            raise NotFoundError(f"{ref!r} is not a blob of bucket {self._bucket}")
        key = ref.removeprefix(f"s3://{self._bucket}/")
        try:
            response = self._client.get_object(Bucket=self._bucket, Key=key)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                raise NotFoundError(f"no blob {ref}") from exc
            raise PersistenceError(f"cannot read blob {ref}: {exc}") from exc
        except BotoCoreError as exc:
            raise PersistenceError(f"cannot read blob {ref}: {exc}") from exc
        body: bytes = response["Body"].read()
        return body
