"""OpenRouter's model list, compared with the lineup: ``arena lineup check``.

``GET /api/v1/models`` (public, no key) lists every model OpenRouter serves. A lineup model
missing from it is retired or was never a valid id: a cohort that freezes it would fail every
decision. A newer release of a lineup model is a model of the same provider whose name has the
same shape once its version numbers are taken out (``claude-opus-4.5`` and ``claude-opus-4.6``,
``gemini-3-pro-preview`` and ``gemini-3.1-pro-preview``) with a higher version, or the same
version and a later ``created`` date. Exact ids only: nothing is guessed from display names.

A hostile list is read, never a crash: JSON nested beyond the decoder's depth is an unreadable
list, a ``created`` no calendar holds is unknown, a version of more than ``MAX_VERSION_DIGITS``
digits is no version, and ids and names are printed inert.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from arena_core.domain.lineup import AgentKind, AgentSpec
from arena_core.domain.text import terminal_text
from arena_core.errors import ConfigurationError, UpstreamError

OPENROUTER_API = "https://openrouter.ai/api/v1"
_TOKEN = re.compile(r"([a-z]*)([0-9][0-9.]*)?([a-z]*)")
MAX_VERSION_DIGITS = 12  # a version number longer than this is a token, not a version
MAX_BODY_BYTES = 64 * 1024 * 1024  # a model list larger than this is not one


@dataclass(frozen=True)
class CatalogueModel:
    model_id: str
    name: str
    created: datetime | None

    @property
    def provider(self) -> str:
        return self.model_id.split("/", 1)[0]


@dataclass(frozen=True)
class Finding:
    family_id: str
    model_id: str
    missing: bool  # retired, or never a valid id
    newer: tuple[CatalogueModel, ...] = ()


def parse_catalogue(payload: Any) -> list[CatalogueModel]:
    """The ``data`` list of a /models response; entries without an id are skipped."""
    rows = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(rows, list):
        raise UpstreamError("the model list has no 'data' array")
    found = []
    for row in rows:
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            name = row.get("name")
            shown = name if isinstance(name, str) and name else row["id"]
            found.append(CatalogueModel(row["id"], shown, _created(row.get("created"))))
    return found


def _created(value: Any) -> datetime | None:
    """A model's creation time (epoch seconds); None when absent or beyond any calendar."""
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    try:
        return datetime.fromtimestamp(value, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def fetch_catalogue(http: httpx.Client, base_url: str = OPENROUTER_API) -> list[CatalogueModel]:
    try:
        response = http.get(f"{base_url.rstrip('/')}/models", timeout=30.0)
        response.raise_for_status()
        if len(response.content) > MAX_BODY_BYTES:
            raise ValueError(f"more than {MAX_BODY_BYTES} bytes")
        return parse_catalogue(response.json())
    except (httpx.HTTPError, ValueError, RecursionError) as exc:
        raise UpstreamError(f"cannot read OpenRouter's model list: {_why(exc)}") from exc


def load_catalogue(path: Path) -> list[CatalogueModel]:
    """A /models response saved to a file (to check offline)."""
    try:
        return parse_catalogue(json.loads(path.read_text()))
    except (OSError, ValueError, RecursionError) as exc:
        raise ConfigurationError(f"cannot read the model list {path}: {_why(exc)}") from exc


def _why(exc: BaseException) -> str:
    return "nested too deep" if isinstance(exc, RecursionError) else str(exc)[:200]


def shape_and_version(model_id: str) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """``anthropic/claude-opus-4.5`` → (("anthropic", "claude", "opus", "#"), ((4, 5),))."""
    provider, _, name = model_id.lower().partition("/")
    shape, versions = [provider], []
    for token in re.split(r"[-_:]", name):
        match = _TOKEN.fullmatch(token)
        digits = match.group(2) if match else None
        parts = digits.strip(".").split(".") if digits else []
        if match is None or not parts or any(len(p) > MAX_VERSION_DIGITS for p in parts):
            shape.append(token)  # no version, or digits no version has: part of the name
            continue
        shape.append(f"{match.group(1)}#{match.group(3)}")
        versions.append(tuple(int(p) for p in parts if p))
    return tuple(shape), tuple(versions)


def newer_releases(
    model_id: str, catalogue: Sequence[CatalogueModel]
) -> tuple[CatalogueModel, ...]:
    shape, version = shape_and_version(model_id)
    if not version:
        return ()
    current = next((m for m in catalogue if m.model_id == model_id), None)
    found = []
    for model in catalogue:
        other_shape, other_version = shape_and_version(model.model_id)
        if model.model_id == model_id or other_shape != shape:
            continue
        later = (
            current is not None
            and other_version == version
            and None not in (model.created, current.created)
            and model.created > current.created  # type: ignore[operator]
        )
        if other_version > version or later:
            found.append(model)
    return tuple(sorted(found, key=lambda m: shape_and_version(m.model_id)[1], reverse=True))


def check(lineup: Sequence[AgentSpec], catalogue: Sequence[CatalogueModel]) -> list[Finding]:
    """One finding per model family of the lineup (baselines need no model)."""
    known = {m.model_id for m in catalogue}
    return [
        Finding(
            spec.family_id,
            spec.model_id,
            missing=spec.model_id not in known,
            newer=newer_releases(spec.model_id, catalogue),
        )
        for spec in lineup
        if spec.kind is AgentKind.LLM and not spec.stand_in
    ]


def report(findings: Sequence[Finding]) -> list[str]:
    lines = []
    for f in findings:
        state = "NOT LISTED (retired or unknown id)" if f.missing else "listed"
        lines.append(f"{f.family_id:<20} {terminal_text(f.model_id):<40} {state}")
        lines += [
            f"{'':<20}   newer: {terminal_text(m.model_id)} ({terminal_text(m.name, 80)})"
            for m in f.newer
        ]
    missing = sum(f.missing for f in findings)
    newer = sum(bool(f.newer) for f in findings)
    lines.append(f"{missing} retired or unknown, {newer} with a newer release")
    return lines
