"""The scheduled functions' real handlers, by the name the template's logical ids carry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from functions.open_cohort import handler as open_cohort
from functions.resolve import handler as resolve
from functions.snapshot import handler as snapshot

SCHEDULED: dict[str, Callable[[dict[str, Any], Any], dict[str, Any]]] = {
    "OpenCohort": open_cohort.handler,
    "Snapshot": snapshot.handler,
    "Resolve": resolve.handler,
}
