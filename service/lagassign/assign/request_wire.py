"""The fast decoder of a ``POST /assign`` body: msgspec, straight into the request's values.

msgspec checks types and bounds in one C pass over the bytes (strict integers
within Kafka's widths, strings within Kafka's length, no unknown field), the same
rules as the pydantic schema (:mod:`lagassign.assign.request_schema`), which is
then built without being run again. Only a body this decoder refuses goes
through pydantic, for its error messages (:func:`lagassign.assign.request.parse_assign_request`).

The compact form is resolved here: a member's ``subscription`` is replaced by
the topic list it points at in ``subscriptions`` (one list shared by every
member that names it, never copied), so the rest of the service sees ``topics``
only. Giving both, neither, or an index past ``subscriptions`` is refused,
naming the field (``members[3].subscription``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NoReturn

import msgspec

from lagassign.assign.request_schema import AnswerForm, AssignRequest, MemberIn
from lagassign.errors import BadRequest
from lagassign.limits import INT32_MAX, INT32_MIN, INT64_MAX, KAFKA_STRING_MAX

KafkaStr = Annotated[str, msgspec.Meta(max_length=KAFKA_STRING_MAX)]
Partition = Annotated[int, msgspec.Meta(ge=0, le=INT32_MAX)]
Generation = Annotated[int, msgspec.Meta(ge=INT32_MIN, le=INT32_MAX)]
Lag = Annotated[int, msgspec.Meta(ge=0, le=INT64_MAX)]
Strategy = Annotated[str, msgspec.Meta(max_length=64)]


class MemberWire(msgspec.Struct, forbid_unknown_fields=True):
    member_id: KafkaStr
    group_instance_id: KafkaStr | None = None
    topics: list[KafkaStr] | msgspec.UnsetType = msgspec.UNSET
    subscription: Partition | None = None
    owned: dict[KafkaStr, list[Partition]] = {}
    generation: Generation | None = None
    rack: KafkaStr | None = None


class RequestWire(msgspec.Struct, forbid_unknown_fields=True):
    partitions: dict[KafkaStr, Partition]
    members: Annotated[list[MemberWire], msgspec.Meta(min_length=1)]
    group_id: KafkaStr = ""
    topic_ids: bool = False
    subscriptions: list[list[KafkaStr]] | None = None
    partition_racks: dict[KafkaStr, list[list[KafkaStr]]] | None = None
    strategy: Strategy | None = None
    protocol: Literal["eager", "cooperative"] = "eager"
    lags: dict[KafkaStr, list[Lag]] | None = None
    reset_policy: Literal["earliest", "latest", "none"] | None = None
    answer_form: AnswerForm = "topics"


DECODER = msgspec.json.Decoder(RequestWire)

#: What the decoder raises for a body it refuses (bytes that are not UTF-8 included).
DecodeFailure = (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError)


def decode_request(raw: bytes | bytearray | str) -> AssignRequest:
    """The request of ``raw``; raises :data:`DecodeFailure` or BadRequest (compact form)."""
    wire = DECODER.decode(raw)
    subscriptions = wire.subscriptions or []
    members = [member_of(i, m, subscriptions) for i, m in enumerate(wire.members)]
    return AssignRequest.model_construct(
        group_id=wire.group_id,
        topic_ids=wire.topic_ids,
        members=members,
        subscriptions=wire.subscriptions,
        partitions=wire.partitions,
        partition_racks=wire.partition_racks,
        strategy=wire.strategy,
        protocol=wire.protocol,
        lags=wire.lags,
        reset_policy=wire.reset_policy,
        answer_form=wire.answer_form,
    )


def member_of(i: int, member: MemberWire, subscriptions: list[list[str]]) -> MemberIn:
    """One member, its ``subscription`` resolved to the shared topic list."""
    fields: dict[str, Any] = {
        "member_id": member.member_id,
        "group_instance_id": member.group_instance_id,
        "owned": member.owned,
        "generation": member.generation,
        "rack": member.rack,
    }
    topics = member.topics if isinstance(member.topics, list) else None
    index = member.subscription
    if index is None:
        if topics is None:
            refuse(
                f"members[{i}].topics",
                "Field required (or `subscription`, an index into `subscriptions`)",
            )
        return MemberIn.model_construct(**fields, topics=topics)
    if topics is not None:
        refuse(f"members[{i}].subscription", "give `topics` or `subscription`, not both")
    if index >= len(subscriptions):
        refuse(
            f"members[{i}].subscription",
            f"{index} is out of range: `subscriptions` has {len(subscriptions)} lists",
        )
    return MemberIn.model_construct(**fields, topics=subscriptions[index], subscription=index)


def refuse(field: str, problem: str) -> NoReturn:
    raise BadRequest(f"{field}: {problem}", [{"field": field, "problem": problem}])


def wire_problem(error: Exception) -> dict[str, str]:
    """msgspec's message as ``{"field", "problem"}``: ``... - at `$.members[0].rack``` named so."""
    text = str(error)
    problem, _, where = text.partition(" - at `")
    field = where.rstrip("`").removeprefix("$").removeprefix(".") if where else "body"
    return {"field": field.replace("[...]", "[*]") or "body", "problem": problem}
