"""The commitments on S3: the site bucket's ``commitments/`` folder, public through CloudFront.

A committed object is written with ``If-None-Match: *`` (S3 refuses it with 412 when the key
exists, so nothing is ever overwritten) and, when the deployment sets one, an Object Lock
retention. The log is replaced with ``If-Match`` on the ETag read (412 when another writer
changed it first) or ``If-None-Match`` for the first line. 409 ConditionalRequestConflict (two
conditional writes of one key in flight) is a lost race too.

The functions run on the Lambda runtime's own boto3 (the layer does not ship one). botocore
knows S3's conditional writes only from late 2024 (``IfNoneMatch`` then ``IfMatch`` on
PutObject): on an older copy every decision would fail after its trades were written. The store
checks its client's own service model when it is built, at the first use of a cold start,
before anything is claimed or written, and refuses to start (``ConfigurationError``, naming the
botocore version found) on a copy that lacks them.
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from arena_core.adapters.object_lock import ObjectLock, lock_arguments
from arena_core.errors import ConfigurationError, ConflictError, PersistenceError
from arena_core.ports.commitment_store import CommitmentStore, Stored

IMMUTABLE = "public, max-age=31536000, immutable"
LOG_CACHE = "public, max-age=60, must-revalidate"
LOST_RACE = ("PreconditionFailed", "ConditionalRequestConflict")
ABSENT = ("NoSuchKey", "404", "NotFound")


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


CONDITIONAL_WRITES = ("IfNoneMatch", "IfMatch")


def require_conditional_writes(client: Any) -> None:
    """Refuse an S3 client whose SDK cannot send PutObject's conditional headers."""
    members = client.meta.service_model.operation_model("PutObject").input_shape.members
    missing = [name for name in CONDITIONAL_WRITES if name not in members]
    if missing:
        import botocore  # noqa: PLC0415

        raise ConfigurationError(
            f"this runtime's botocore {botocore.__version__} cannot send S3 conditional writes "
            f"(PutObject lacks {', '.join(missing)}): commitments need a botocore from late "
            "2024 or later (the tests ran 1.44). Move the functions to a newer Python runtime, "
            "or add boto3 to the layer."
        )


def _content_type(key: str) -> str:
    return "application/json" if key.endswith(".json") else "text/plain; charset=utf-8"


class S3CommitmentStore(CommitmentStore):
    def __init__(self, client: Any, bucket: str, *, lock: ObjectLock | None = None) -> None:
        require_conditional_writes(client)
        self._client = client
        self._bucket = bucket
        self._lock = lock

    def create(self, key: str, body: bytes) -> bool:
        try:
            self._client.put_object(
                Bucket=self._bucket,
                Key=key,
                Body=body,
                ContentType=_content_type(key),
                CacheControl=IMMUTABLE,
                IfNoneMatch="*",
                **lock_arguments(self._lock),
            )
        except ClientError as exc:
            if _code(exc) == "PreconditionFailed":
                return False  # already there: committed objects are never replaced
            if _code(exc) == "ConditionalRequestConflict":
                raise ConflictError(f"{key} is being written by another request") from exc
            raise PersistenceError(f"cannot commit {key}: {exc}") from exc
        except BotoCoreError as exc:
            raise PersistenceError(f"cannot commit {key}: {exc}") from exc
        return True

    def read(self, key: str) -> Stored | None:
        try:
            response = self._client.get_object(Bucket=self._bucket, Key=key)
            body: bytes = response["Body"].read()
        except ClientError as exc:
            if _code(exc) in ABSENT:
                return None
            raise PersistenceError(f"cannot read {key}: {exc}") from exc
        except BotoCoreError as exc:
            raise PersistenceError(f"cannot read {key}: {exc}") from exc
        return Stored(body, str(response["ETag"]))

    def keys(self, prefix: str) -> list[str]:
        found: list[str] = []
        token: dict[str, str] = {}
        try:
            while True:
                page = self._client.list_objects_v2(Bucket=self._bucket, Prefix=prefix, **token)
                found += [str(item["Key"]) for item in page.get("Contents", [])]
                if not page.get("IsTruncated"):
                    return sorted(found)
                token = {"ContinuationToken": str(page["NextContinuationToken"])}
        except (ClientError, BotoCoreError) as exc:
            raise PersistenceError(f"cannot list {prefix}: {exc}") from exc

    def replace(self, key: str, body: bytes, *, expected: str | None) -> None:
        condition = {"IfMatch": expected} if expected is not None else {"IfNoneMatch": "*"}
        try:
            self._client.put_object(
                Bucket=self._bucket,
                Key=key,
                Body=body,
                ContentType=_content_type(key),
                CacheControl=LOG_CACHE,
                **condition,
            )
        except ClientError as exc:
            if _code(exc) in LOST_RACE or _code(exc) in ABSENT:
                raise ConflictError(f"{key} changed since it was read") from exc
            raise PersistenceError(f"cannot write {key}: {exc}") from exc
        except BotoCoreError as exc:
            raise PersistenceError(f"cannot write {key}: {exc}") from exc
