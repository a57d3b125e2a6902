"""The dataset's columns about commitments (the data page's "Commitments" section explains how
to check them)."""

from __future__ import annotations

COMMITMENT_COLUMNS: tuple[tuple[str, str], ...] = (
    (
        "commitment",
        "SHA-256 of the decision's canonical record, published in the commitments log the "
        "moment it succeeded (see Commitments above: how to recompute it from these files); "
        "empty while it has not succeeded.",
    ),
)
