"""``ConsumerGroupDescribe`` v0 (API key 69, KIP-848; aiokafka lacks it).

The members of a consumer-protocol group with their racks, subscriptions and
assignments (by topic id and name), the group's assignor and epochs, decoded into
frozen values.
"""

from __future__ import annotations

from dataclasses import dataclass
from io import BytesIO
from typing import ClassVar

from aiokafka.protocol.types import (  # type: ignore[import-untyped]
    Boolean,
    CompactArray,
    CompactString,
    TaggedFields,
)

from lagassign.lagview.kafka.wire import (
    CompactReader,
    OneVersion,
    request_struct,
    rest,
)

CONSUMER_GROUP_DESCRIBE_KEY = 69


@dataclass(frozen=True, slots=True)
class DescribedTopicPartitions:
    """One topic of a member's assignment: id, name and partitions."""

    topic_id: str
    topic: str
    partitions: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DescribedConsumerMember:
    """One member of a consumer-protocol group, as ``ConsumerGroupDescribe`` reports it."""

    member_id: str
    instance_id: str | None
    rack: str | None
    member_epoch: int
    client_id: str
    client_host: str
    subscribed_topics: tuple[str, ...]
    subscribed_regex: str | None
    assignment: tuple[DescribedTopicPartitions, ...]
    target_assignment: tuple[DescribedTopicPartitions, ...]


@dataclass(frozen=True, slots=True)
class DescribedConsumerGroup:
    """One group of a ``ConsumerGroupDescribe`` answer."""

    error_code: int
    error_message: str | None
    group_id: str
    state: str
    group_epoch: int
    assignment_epoch: int
    assignor: str
    members: tuple[DescribedConsumerMember, ...]


def _assignment(reader: CompactReader) -> tuple[DescribedTopicPartitions, ...]:
    topics = []
    for _ in range(reader.length()):
        topic_id = reader.uuid()
        name = reader.string() or ""
        partitions = tuple(sorted(reader.int32_array()))
        reader.skip_tags()
        topics.append(DescribedTopicPartitions(topic_id, name, partitions))
    reader.skip_tags()
    return tuple(sorted(topics, key=lambda t: t.topic))


@dataclass
class ConsumerGroupDescribeResponseV0:
    """``ConsumerGroupDescribe`` v0 (KIP-848) answer, decoded into frozen values.

    v1 only adds each member's type (classic or consumer member); v0 is what the
    view needs, and what every broker with consumer-protocol groups offers.
    """

    API_KEY: ClassVar[int] = CONSUMER_GROUP_DESCRIBE_KEY
    API_VERSION: ClassVar[int] = 0

    throttle_time_ms: int
    groups: tuple[DescribedConsumerGroup, ...]

    @classmethod
    def decode(cls, data: BytesIO) -> ConsumerGroupDescribeResponseV0:
        reader = CompactReader(rest(data))
        throttle = reader.int32()
        groups = []
        for _ in range(reader.length()):
            error_code = reader.int16()
            error_message = reader.string()
            group_id = reader.string() or ""
            state = reader.string() or ""
            group_epoch = reader.int32()
            assignment_epoch = reader.int32()
            assignor = reader.string() or ""
            members = []
            for _ in range(reader.length()):
                member_id = reader.string() or ""
                instance_id = reader.string()
                rack = reader.string()
                member_epoch = reader.int32()
                client_id = reader.string() or ""
                client_host = reader.string() or ""
                subscribed = tuple(reader.string() or "" for _ in range(reader.length()))
                regex = reader.string()
                assignment = _assignment(reader)
                target = _assignment(reader)
                reader.skip_tags()
                members.append(
                    DescribedConsumerMember(
                        member_id,
                        instance_id,
                        rack,
                        member_epoch,
                        client_id,
                        client_host,
                        subscribed,
                        regex,
                        assignment,
                        target,
                    )
                )
            reader.int32()  # authorized operations
            reader.skip_tags()
            groups.append(
                DescribedConsumerGroup(
                    error_code,
                    error_message,
                    group_id,
                    state,
                    group_epoch,
                    assignment_epoch,
                    assignor,
                    tuple(members),
                )
            )
        reader.skip_tags()
        return cls(throttle, tuple(groups))


ConsumerGroupDescribeRequestV0 = request_struct(
    ConsumerGroupDescribeResponseV0,
    ("groups", CompactArray(CompactString("utf-8"))),
    ("include_authorized_operations", Boolean),
    ("tags", TaggedFields),
    flexible=True,
)


def consumer_group_describe(group_id: str) -> OneVersion:
    """``ConsumerGroupDescribe`` of one consumer-protocol group."""
    return OneVersion(ConsumerGroupDescribeRequestV0, [group_id], False, {})
