"""The wire schema of the ``POST /assign`` answer, for the OpenAPI document.

The body itself is written by :meth:`lagassign.assign.answer.Answer.to_json`;
the request's schema is :mod:`lagassign.assign.request`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class LagOut(BaseModel):
    source: Literal["request", "kafka", "kafka-load", "forecast", "none"]
    as_of: str | None
    age_seconds: float | None
    complete: bool
    unknown_partitions: int


class StatsOut(BaseModel):
    partitions: int
    members: int
    member_lag: dict[str, int]
    max_lag: int
    mean_lag: float
    imbalance: float
    lower_bound: float
    moved: int
    compute_ms: float


class AssignResponse(BaseModel):
    """The answer of ``POST /assign`` (documented in the OpenAPI schema)."""

    group_id: str
    strategy: str
    assignment: dict[str, dict[str, list[int]]]
    revoked: dict[str, dict[str, list[int]]]
    lag: LagOut
    stats: StatsOut
