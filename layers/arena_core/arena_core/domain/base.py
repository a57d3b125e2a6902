"""Shared base for domain models: immutable, strict about unknown fields."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class DomainModel(BaseModel):
    """Frozen pydantic model; state changes produce new instances with ``model_copy``."""

    model_config = ConfigDict(frozen=True, extra="forbid")
