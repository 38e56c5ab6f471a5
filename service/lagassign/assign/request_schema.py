"""The ``POST /assign`` request as a pydantic model: the OpenAPI document, and the error messages.

This model is what ``/openapi.json`` describes and what a refused body's error
names the problems with (``members[2].topics: Field required``). It is not run
on a request the fast decoder (:mod:`lagassign.assign.request_wire`) accepts:
that decoder checks the same fields with the same bounds, and builds these
models without validating them again (``model_construct``). A test keeps the
two in step (``tests/service/test_request_wire.py``).

Every field is strict and bounded by Kafka's own widths (:mod:`lagassign.limits`):
``true``, ``"4"``, ``2.0`` or ``1e2`` is not an integer, a partition count or a
generation is 32-bit, a lag 64-bit, an id, topic or rack at most 32,767 characters.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from lagassign.limits import INT32_MAX, INT32_MIN, INT64_MAX, KAFKA_STRING_MAX

#: A Kafka string: group ids, member and instance ids, topic names, racks.
KafkaString = Annotated[str, Field(strict=True, max_length=KAFKA_STRING_MAX)]
#: A partition count or a partition number (Kafka's INT32, not negative).
PartitionInt = Annotated[int, Field(strict=True, ge=0, le=INT32_MAX)]
#: A generation (Kafka's INT32; -1 is Kafka's "no generation").
GenerationInt = Annotated[int, Field(strict=True, ge=INT32_MIN, le=INT32_MAX)]
#: A lag (Kafka's INT64, not negative).
LagInt = Annotated[int, Field(strict=True, ge=0, le=INT64_MAX)]
#: A position in the request's ``subscriptions``.
SubscriptionIndex = Annotated[int, Field(strict=True, ge=0, le=INT32_MAX)]

AnswerForm = Literal["topics", "indexed", "packed"]


class MemberIn(BaseModel):
    """One member; it gives either ``topics`` or ``subscription``, exactly one of them."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    member_id: KafkaString
    group_instance_id: KafkaString | None = None
    topics: list[KafkaString] = Field(
        default_factory=list,
        description="The topics the member subscribes to. Give this or `subscription`.",
    )
    subscription: SubscriptionIndex | None = Field(
        default=None,
        description=(
            "The compact form: the index of the member's topic list in the request's "
            "`subscriptions`. Give this or `topics`."
        ),
    )
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
    subscriptions: list[list[KafkaString]] | None = Field(
        default=None,
        description=(
            "The compact form: each topic list once, for the members that share it "
            "(a member names its list by `subscription`, its index here)."
        ),
    )
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
    answer_form: AnswerForm = Field(
        default="topics",
        description=(
            "`topics`: assignment and revoked as {member_id: {topic: [partitions]}}; "
            "`indexed`: as {member_id: [[topic_index, [partitions]], ...]} with the "
            "answer's `topics` list, in the order of `partitions`' keys; `packed`: each "
            'member as {"topic_indices": base64, "partitions": base64}, two arrays of '
            "unsigned 32-bit little-endian integers, with the same `topics` list."
        ),
    )
