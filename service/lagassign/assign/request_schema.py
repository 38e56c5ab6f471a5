"""The ``POST /assign`` request: its one schema, decoded by msgspec straight into these values.

These structs are what a body is decoded into (one C pass over the bytes), what
``/openapi.json`` describes (:func:`request_components`, msgspec's JSON Schema) and
what a refused body's error is worded from (:mod:`lagassign.assign.request_errors`).

Every field is strict and bounded by Kafka's own widths (:mod:`lagassign.limits`):
``true``, ``"4"``, ``2.0`` or ``1e2`` is not an integer, a partition count or a
generation is 32-bit, a lag 64-bit, an id, topic or rack at most 32,767 characters;
no field outside the schema is accepted.

A member gives ``topics`` or, in the compact form, ``subscription`` (an index into
the request's ``subscriptions``); parsing (:func:`lagassign.assign.request.parse_assign_request`)
resolves the index to the shared list, so past it every member has ``topics``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from lagassign.limits import INT32_MAX, INT32_MIN, INT64_MAX, KAFKA_STRING_MAX

#: A Kafka string: group ids, member and instance ids, topic names, racks.
KafkaString = Annotated[str, Meta(max_length=KAFKA_STRING_MAX)]
#: A partition count or a partition number (Kafka's INT32, not negative).
PartitionInt = Annotated[int, Meta(ge=0, le=INT32_MAX)]
#: A generation (Kafka's INT32; -1 is Kafka's "no generation").
GenerationInt = Annotated[int, Meta(ge=INT32_MIN, le=INT32_MAX)]
#: A lag (Kafka's INT64, not negative).
LagInt = Annotated[int, Meta(ge=0, le=INT64_MAX)]

AnswerForm = Literal["topics", "packed"]
#: The answer forms, for messages.
ANSWER_FORMS: tuple[AnswerForm, ...] = ("topics", "packed")


class MemberIn(msgspec.Struct, forbid_unknown_fields=True):
    """One member; it gives either ``topics`` or ``subscription``, exactly one of them."""

    member_id: KafkaString
    group_instance_id: KafkaString | None = None
    topics: Annotated[
        list[KafkaString] | UnsetType,
        Meta(description="The topics the member subscribes to. Give this or `subscription`."),
    ] = UNSET
    subscription: Annotated[
        PartitionInt | None,
        Meta(
            description="The compact form: the index of the member's topic list in the "
            "request's `subscriptions`. Give this or `topics`."
        ),
    ] = None
    owned: dict[KafkaString, list[PartitionInt]] = {}
    generation: GenerationInt | None = None
    rack: KafkaString | None = None


class AssignRequest(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /assign`` (``docs/http-api.md``).

    ``group_id`` is required, except in the topic-id form (``topic_ids: true``,
    what lagassign's broker plugin sends): there every topic is named by its
    Kafka topic id and the group is resolved from the member ids.
    """

    partitions: dict[KafkaString, PartitionInt]
    members: Annotated[list[MemberIn], Meta(min_length=1)]
    group_id: KafkaString = ""
    topic_ids: bool = False
    subscriptions: Annotated[
        list[list[KafkaString]] | None,
        Meta(
            description="The compact form: each topic list once, for the members that "
            "share it (a member names its list by `subscription`, its index here)."
        ),
    ] = None
    partition_racks: dict[KafkaString, list[list[KafkaString]]] | None = None
    strategy: Annotated[str, Meta(max_length=64)] | None = None
    protocol: Literal["eager", "cooperative"] = "eager"
    lags: dict[KafkaString, list[LagInt]] | None = None
    reset_policy: Annotated[
        Literal["earliest", "latest", "none"] | None,
        Meta(
            description="The consumer's auto.offset.reset: the lag of a partition without "
            "a committed offset is log end - log start (earliest), 0 (latest) or unknown "
            "(none). Without it, the group's configured reset policy applies."
        ),
    ] = None
    answer_form: Annotated[
        AnswerForm,
        Meta(
            description="`topics` (for people): assignment and revoked as "
            "{member_id: {topic: [partitions]}}; `packed` (for machines): the answer's "
            "`topics` lists the request's `partitions` keys in their order, and each member "
            'is {"topic_indices": base64, "partitions": base64}, two arrays of unsigned '
            "32-bit little-endian integers."
        ),
    ] = "topics"


DECODER = msgspec.json.Decoder(AssignRequest)


def request_components() -> dict[str, Any]:
    """The JSON Schemas of the request body, as OpenAPI components (``AssignRequest``, ...)."""
    _, components = msgspec.json.schema_components(
        (AssignRequest,), ref_template="#/components/schemas/{name}"
    )
    return components
