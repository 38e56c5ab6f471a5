"""The wire schemas of what the service answers, for the OpenAPI document.

The ``POST /assign`` body itself is written by
:mod:`lagassign.assign.answer_forms` and encoded by msgspec (no model walk over a
million-partition answer); these models only say its shape, and
``tests/service/test_contract.py`` checks every kind of answer against the schema
``/openapi.json`` serves. ``extra="forbid"``
makes each object closed (``additionalProperties: false``), so a field the
encoder writes but the schema does not name fails that test. The request's
schema is :mod:`lagassign.assign.request_schema`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict


class WireModel(BaseModel):
    """A closed JSON object: every field required, no other field allowed."""

    model_config = ConfigDict(extra="forbid")


class FlowOut(WireModel):
    horizon_s: float
    member_capacity: float | None
    capacity_source: Literal["setting", "measured", "unknown"]
    overrun: bool
    unknown_rates: int


class LagOut(WireModel):
    source: Literal["request", "kafka", "kafka-load", "kafka-drain", "forecast", "none"]
    as_of: str | None
    age_seconds: float | None
    complete: bool
    unknown_partitions: int
    flow: FlowOut | None


class StatsOut(WireModel):
    partitions: int
    members: int
    member_lag: dict[str, int]
    max_lag: int
    mean_lag: float
    imbalance: float
    lower_bound: float
    moved: int
    compute_ms: float


class AssignResponse(WireModel):
    """The answer of ``POST /assign`` in the ``topics`` form (the default, for people)."""

    group_id: str
    strategy: str
    assignment: dict[str, dict[str, list[int]]]
    revoked: dict[str, dict[str, list[int]]]
    lag: LagOut
    stats: StatsOut


class PackedMemberOut(WireModel):
    """One member's partitions in the packed form: two equally long arrays of unsigned
    32-bit little-endian integers, each in base64 (RFC 4648, with padding)."""

    topic_indices: str
    partitions: str


class PackedAssignResponse(WireModel):
    """The answer of ``POST /assign`` asked with ``answer_form: "packed"`` (for machines).

    ``topics`` lists the request's ``partitions`` keys in its order; ``assignment`` and
    ``revoked`` map each member to its ``topic_indices`` and ``partitions`` arrays.
    """

    group_id: str
    strategy: str
    topics: list[str]
    assignment: dict[str, PackedMemberOut]
    revoked: dict[str, PackedMemberOut]
    lag: LagOut
    stats: StatsOut


class ProblemOut(WireModel):
    """One problem of a refused request body."""

    field: str
    problem: str


class ErrorOut(WireModel):
    code: str  # docs/http-api.md lists the codes and their statuses
    message: str
    details: list[ProblemOut] | dict[str, Any] | None


class ErrorResponse(WireModel):
    """Every error, on every route: ``{"error": {"code", "message", "details"}}``."""

    error: ErrorOut


def error_responses(described: dict[int, str]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for error statuses, each with the one error shape."""
    return {
        status: {"description": description, "model": ErrorResponse}
        for status, description in described.items()
    }
