"""The wire schema of a ``POST /assign`` request (pydantic), apart from the core's domain values.

:func:`parse_assign_request` turns raw JSON bytes into an :class:`AssignRequest`
and every validation failure into :class:`~lagassign.errors.BadRequest` with a
message that names the field as ``members[2].topics``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lagassign.errors import BadRequest, InvalidJson


class MemberIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    member_id: str
    group_instance_id: str | None = None
    topics: list[str]
    owned: dict[str, list[int]] = Field(default_factory=dict)
    generation: int | None = None
    rack: str | None = None


class AssignRequest(BaseModel):
    """The body of ``POST /assign`` (``docs/http-api.md``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    group_id: str = Field(min_length=1)
    members: list[MemberIn]
    partitions: dict[str, int]
    partition_racks: dict[str, list[list[str]]] | None = None
    strategy: str | None = None
    protocol: Literal["eager", "cooperative"] = "eager"
    lags: dict[str, list[int]] | None = None
    reset_policy: Literal["earliest", "latest", "none"] | None = Field(
        default=None,
        description=(
            "The consumer's auto.offset.reset: the lag of a partition without a committed "
            "offset is log end - log start (earliest), 0 (latest) or unknown (none). "
            "Without it, the group's configured reset policy applies."
        ),
    )


def field_path(loc: tuple[int | str, ...]) -> str:
    """``("members", 2, "topics")`` -> ``members[2].topics``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out or "body"


def parse_assign_request(raw: bytes | str) -> AssignRequest:
    """Parse and type-check a request; raise BadRequest naming the first bad field."""
    try:
        return AssignRequest.model_validate_json(raw)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_context=False, include_input=False)
        if errors and errors[0]["type"] == "json_invalid":
            raise InvalidJson(f"the body is not valid JSON: {errors[0]['msg']}") from None
        details: list[dict[str, Any]] = [
            {"field": field_path(tuple(e["loc"])), "problem": e["msg"]} for e in errors[:20]
        ]
        first = details[0]
        raise BadRequest(f"{first['field']}: {first['problem']}", details) from None
