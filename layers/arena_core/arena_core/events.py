"""The events the Lambda handlers accept and return, as pydantic models (shared with infra)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class DecisionRunInput(BaseModel):
    """The state machine's input: an operator may rerun one week, some cohorts or some agents."""

    model_config = ConfigDict(extra="ignore")

    week_start: date | None = None
    cohort_ids: list[str] | None = None
    agent_ids: list[str] | None = None
    max_concurrency: int | None = Field(default=None, ge=0)


class DecideItem(BaseModel):
    model_config = ConfigDict(extra="ignore")

    agent_id: str
    run_at: datetime
    universe_ref: str
    execution_id: str = "manual"


class FinalizeInput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    results: list[dict[str, Any]] = Field(default_factory=list)
