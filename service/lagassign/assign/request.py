"""The wire schema of a ``POST /assign`` request (pydantic), apart from the core's domain values.

:func:`parse_assign_request` turns raw JSON bytes into an :class:`AssignRequest`
and every validation failure into :class:`~lagassign.errors.BadRequest` with a
message that names the field as ``members[2].topics``.

Every field is strict and bounded by Kafka's own widths (:mod:`lagassign.limits`):
``true``, ``"4"``, ``2.0`` or ``1e2`` is not an integer, a partition count or a
generation is 32-bit, a lag 64-bit, an id, topic or rack at most 32,767
characters. :func:`check_request_limits` then applies the size caps (413).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lagassign.errors import BadRequest, InvalidJson, TooLarge
from lagassign.limits import INT32_MAX, INT32_MIN, INT64_MAX, KAFKA_STRING_MAX, RequestLimits

#: A Kafka string: group ids, member and instance ids, topic names, racks.
KafkaString = Annotated[str, Field(strict=True, max_length=KAFKA_STRING_MAX)]
#: A partition count or a partition number (Kafka's INT32, not negative).
PartitionInt = Annotated[int, Field(strict=True, ge=0, le=INT32_MAX)]
#: A generation (Kafka's INT32; -1 is Kafka's "no generation").
GenerationInt = Annotated[int, Field(strict=True, ge=INT32_MIN, le=INT32_MAX)]
#: A lag (Kafka's INT64, not negative).
LagInt = Annotated[int, Field(strict=True, ge=0, le=INT64_MAX)]


class MemberIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    member_id: KafkaString
    group_instance_id: KafkaString | None = None
    topics: list[KafkaString]
    owned: dict[KafkaString, list[PartitionInt]] = Field(default_factory=dict)
    generation: GenerationInt | None = None
    rack: KafkaString | None = None


class AssignRequest(BaseModel):
    """The body of ``POST /assign`` (``docs/http-api.md``).

    ``group_id`` is required, except in the topic-id form (``topic_ids: true``,
    what lagassign's broker plugin sends): there every topic is named by its
    Kafka topic id and the group is resolved from the member ids
    (:mod:`lagassign.assign.topic_ids`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    group_id: KafkaString = ""
    topic_ids: bool = False
    members: list[MemberIn] = Field(min_length=1)
    partitions: dict[KafkaString, PartitionInt]
    partition_racks: dict[KafkaString, list[list[KafkaString]]] | None = None
    strategy: Annotated[str, Field(max_length=64)] | None = None
    protocol: Literal["eager", "cooperative"] = "eager"
    lags: dict[KafkaString, list[LagInt]] | None = None
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
        request = AssignRequest.model_validate_json(raw)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_context=False, include_input=False)
        if errors and errors[0]["type"] == "json_invalid":
            raise InvalidJson(f"the body is not valid JSON: {errors[0]['msg']}") from None
        details: list[dict[str, Any]] = [
            {"field": field_path(tuple(e["loc"])), "problem": e["msg"]} for e in errors[:20]
        ]
        first = details[0]
        raise BadRequest(f"{first['field']}: {first['problem']}", details) from None
    if not request.group_id and not request.topic_ids:
        problem = "required and not empty (only a topic-id request, topic_ids: true, omits it)"
        raise BadRequest(f"group_id: {problem}", [{"field": "group_id", "problem": problem}])
    return request


def partition_total(request: AssignRequest) -> int:
    """Partitions of every topic the request lists, in all."""
    return sum(request.partitions.values())


def check_request_limits(request: AssignRequest, limits: RequestLimits) -> None:
    """TooLarge (413) for a request over ``limits``' members or partitions."""
    members = len(request.members)
    if members > limits.max_members:
        raise TooLarge(
            f"members: {members} members exceed the limit of {limits.max_members} "
            "(LAGASSIGN_MAX_MEMBERS)"
        )
    partitions = partition_total(request)
    if partitions > limits.max_partitions:
        raise TooLarge(
            f"partitions: {partitions} partitions exceed the limit of "
            f"{limits.max_partitions} (LAGASSIGN_MAX_PARTITIONS)"
        )
