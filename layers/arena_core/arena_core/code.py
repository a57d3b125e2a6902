"""The digest of this package's own source: what is kept between invocations and computed by
this code (the leaderboard's statistics, a table's digest) is tied to it, so a deployment of
other code never reads it as its own."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

ROOT = Path(__file__).parent


@cache
def code_digest() -> str:
    """SHA-256 over every Python source and template of the package, by relative path."""
    digest = hashlib.sha256()
    for path in sorted(p for p in ROOT.rglob("*") if p.suffix in {".py", ".j2", ".json"}):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()
