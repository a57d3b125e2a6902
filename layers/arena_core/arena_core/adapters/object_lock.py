"""S3 Object Lock retention, set per object when it is written.

The buckets are created with Object Lock enabled and no default retention (the site bucket
also holds pages that every publication overwrites); the objects that must never change, the
commitments and the audit records, are written with a retention mode and a retain-until date
from the deployment's settings (``ARENA_OBJECT_LOCK_MODE``, ``ARENA_OBJECT_LOCK_DAYS``).
Retention runs from the real time of the write, whatever clock the application runs on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from arena_core.constants import ObjectLockMode
from arena_core.ports.clock import Clock, SystemClock


@dataclass(frozen=True)
class ObjectLock:
    mode: ObjectLockMode
    days: int
    clock: Clock = field(default_factory=SystemClock, compare=False)

    def put_arguments(self) -> dict[str, Any]:
        """The PutObject arguments that retain the object (needs s3:PutObjectRetention). S3
        refuses Object Lock parameters without an integrity checksum: one is asked for
        explicitly, whatever the SDK in the Lambda runtime sends by default."""
        until = self.clock.now() + timedelta(days=self.days)
        return {
            "ObjectLockMode": self.mode.value,
            "ObjectLockRetainUntilDate": until,
            "ChecksumAlgorithm": "SHA256",
        }


def object_lock(mode: ObjectLockMode | None, days: int) -> ObjectLock | None:
    """The retention to apply, or None (no mode, or zero days: objects are not retained)."""
    return ObjectLock(mode, days) if mode is not None and days > 0 else None


def lock_arguments(lock: ObjectLock | None) -> dict[str, Any]:
    return lock.put_arguments() if lock is not None else {}
