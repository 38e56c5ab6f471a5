"""Kafka protocol messages the view sends itself, through aiokafka's connection.

- ``DescribeGroups`` v4: the first version that reports each member's
  ``group.instance.id`` (aiokafka stops at v3, and its v3 request is paired
  with the v2 response layout, which is why the view describes one group per
  call and asks for v4 when the broker offers it).
- ``ListGroups`` v5: reports each group's state and type (``classic`` or
  ``consumer``, KIP-848) in the one listing request.
- ``OffsetFetch`` v3 (every committed offset of a group) and ``Metadata`` v5
  (partitions and leaders of the wanted topics): the same layouts aiokafka
  ships, but read by a decoder written for these two responses. They are the
  large ones (one row per partition, 100,000 rows a refresh for a big fleet)
  and aiokafka's generic field-by-field decoding would take most of a refresh.
- ``ConsumerGroupDescribe`` v0 (API key 69, KIP-848; aiokafka lacks it): the
  members of a consumer-protocol group with their racks, subscriptions and
  assignments (by topic id and name), the group's assignor and epochs.
- ``Metadata`` v12 of every topic: the cluster's topic ids (v10+), which the
  broker plugin's requests name topics by.

All are built from aiokafka's own protocol types and sent through aiokafka's
connection, which negotiates the version per connection: when a broker does not
offer these versions, sending them raises ``NotImplementedError`` and the callers
fall back to aiokafka's own requests.
"""

from __future__ import annotations

import base64
import struct
from dataclasses import dataclass
from io import BytesIO
from typing import ClassVar

from aiokafka.protocol.api import Request, RequestStruct, Response  # type: ignore[import-untyped]
from aiokafka.protocol.types import (  # type: ignore[import-untyped]
    Array,
    Boolean,
    Bytes,
    CompactArray,
    CompactString,
    Int16,
    Int32,
    Int64,
    Schema,
    String,
    TaggedFields,
)

DESCRIBE_GROUPS_KEY = 15
LIST_GROUPS_KEY = 16
OFFSET_FETCH_KEY = 9
METADATA_KEY = 3

_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_OFFSET_ROW = struct.Struct(">iqh")  # partition, committed offset, metadata length
_PARTITION_ROW = struct.Struct(">hii")  # error code, partition, leader


class DescribeGroupsResponseV4(Response):  # type: ignore[misc]
    API_KEY = DESCRIBE_GROUPS_KEY
    API_VERSION = 4
    SCHEMA = Schema(
        ("throttle_time_ms", Int32),
        (
            "groups",
            Array(
                ("error_code", Int16),
                ("group", String("utf-8")),
                ("state", String("utf-8")),
                ("protocol_type", String("utf-8")),
                ("protocol", String("utf-8")),
                (
                    "members",
                    Array(
                        ("member_id", String("utf-8")),
                        ("group_instance_id", String("utf-8")),
                        ("client_id", String("utf-8")),
                        ("client_host", String("utf-8")),
                        ("member_metadata", Bytes),
                        ("member_assignment", Bytes),
                    ),
                ),
                ("authorized_operations", Int32),
            ),
        ),
    )


class DescribeGroupsRequestV4(RequestStruct):  # type: ignore[misc]
    API_KEY = DESCRIBE_GROUPS_KEY
    API_VERSION = 4
    RESPONSE_TYPE = DescribeGroupsResponseV4
    SCHEMA = Schema(
        ("groups", Array(String("utf-8"))),
        ("include_authorized_operations", Boolean),
    )


class DescribeGroupsV4(Request[DescribeGroupsRequestV4]):  # type: ignore[misc]
    """DescribeGroups for one group, v4 only (the broker must offer v4)."""

    API_KEY = DESCRIBE_GROUPS_KEY

    def __init__(self, group_id: str) -> None:
        self._group_id = group_id

    def build(self, request_struct_class: type[DescribeGroupsRequestV4]) -> DescribeGroupsRequestV4:
        return request_struct_class([self._group_id], False)


class ListGroupsResponseV5(Response):  # type: ignore[misc]
    API_KEY = LIST_GROUPS_KEY
    API_VERSION = 5
    SCHEMA = Schema(
        ("throttle_time_ms", Int32),
        ("error_code", Int16),
        (
            "groups",
            CompactArray(
                ("group", CompactString("utf-8")),
                ("protocol_type", CompactString("utf-8")),
                ("group_state", CompactString("utf-8")),
                ("group_type", CompactString("utf-8")),
                ("tags", TaggedFields),
            ),
        ),
        ("tags", TaggedFields),
    )


class ListGroupsRequestV5(RequestStruct):  # type: ignore[misc]
    FLEXIBLE_VERSION = True
    API_KEY = LIST_GROUPS_KEY
    API_VERSION = 5
    RESPONSE_TYPE = ListGroupsResponseV5
    SCHEMA = Schema(
        ("states_filter", CompactArray(CompactString("utf-8"))),
        ("types_filter", CompactArray(CompactString("utf-8"))),
        ("tags", TaggedFields),
    )


class ListGroupsV5(Request[ListGroupsRequestV5]):  # type: ignore[misc]
    """ListGroups of every state and type, v5 only (the broker must offer v5)."""

    API_KEY = LIST_GROUPS_KEY

    def build(self, request_struct_class: type[ListGroupsRequestV5]) -> ListGroupsRequestV5:
        return request_struct_class([], [], {})


class _Reader:
    """Reads big-endian Kafka protocol fields from a buffer, front to back."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def int16(self) -> int:
        (value,) = _INT16.unpack_from(self.data, self.pos)
        self.pos += 2
        return int(value)

    def int32(self) -> int:
        (value,) = _INT32.unpack_from(self.data, self.pos)
        self.pos += 4
        return int(value)

    def string(self) -> str | None:
        length = self.int16()
        if length < 0:
            return None
        start, self.pos = self.pos, self.pos + length
        return self.data[start : self.pos].decode("utf-8")

    def skip_int32_array(self) -> None:
        length = self.int32()
        self.pos += 4 * max(0, length)


def _rest(data: BytesIO) -> bytes:
    """What is left of a response buffer after the header aiokafka has read."""
    return data.read()


class OffsetFetchResponseV3:
    """``OffsetFetch`` v3 answer, decoded straight into what the view keeps.

    ``offsets``: topic -> partition -> committed offset (-1: none);
    ``partition_errors``: (topic, partition, error code) of the rows that carry
    one; ``error_code``: the group-level error. The offset metadata strings are
    skipped.
    """

    API_KEY: ClassVar[int] = OFFSET_FETCH_KEY
    API_VERSION: ClassVar[int] = 3

    def __init__(
        self,
        throttle_time_ms: int,
        offsets: dict[str, dict[int, int]],
        partition_errors: list[tuple[str, int, int]],
        error_code: int,
    ) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.offsets = offsets
        self.partition_errors = partition_errors
        self.error_code = error_code

    @classmethod
    def decode(cls, data: BytesIO) -> OffsetFetchResponseV3:
        reader = _Reader(_rest(data))
        throttle = reader.int32()
        buffer, unpack_row, unpack_error = reader.data, _OFFSET_ROW.unpack_from, _INT16.unpack_from
        offsets: dict[str, dict[int, int]] = {}
        errors: list[tuple[str, int, int]] = []
        for _ in range(reader.int32()):
            topic = reader.string() or ""
            count = reader.int32()
            pos = reader.pos
            rows = offsets.setdefault(topic, {})
            for _ in range(count):
                partition, offset, metadata_length = unpack_row(buffer, pos)
                pos += _OFFSET_ROW.size + max(0, metadata_length)
                (error,) = unpack_error(buffer, pos)
                pos += 2
                rows[partition] = offset
                if error:
                    errors.append((topic, partition, error))
            reader.pos = pos
        return cls(throttle, offsets, errors, reader.int16())


class OffsetFetchRequestV3(RequestStruct):  # type: ignore[misc]
    API_KEY = OFFSET_FETCH_KEY
    API_VERSION = 3
    RESPONSE_TYPE = OffsetFetchResponseV3
    SCHEMA = Schema(
        ("consumer_group", String("utf-8")),
        ("topics", Array(("topic", String("utf-8")), ("partitions", Array(Int32)))),
    )


class OffsetFetchAll(Request[OffsetFetchRequestV3]):  # type: ignore[misc]
    """Every committed offset of one group (``topics`` null), v3 only."""

    API_KEY = OFFSET_FETCH_KEY

    def __init__(self, group_id: str) -> None:
        self._group_id = group_id

    def build(self, request_struct_class: type[OffsetFetchRequestV3]) -> OffsetFetchRequestV3:
        return request_struct_class(self._group_id, None)


class MetadataResponseV5:
    """``Metadata`` v5 answer, reduced to what the view reads.

    ``topics``: [(error_code, topic, is_internal, [(error_code, partition, leader)])].
    """

    API_KEY: ClassVar[int] = METADATA_KEY
    API_VERSION: ClassVar[int] = 5

    def __init__(self, topics: list[tuple[int, str, bool, list[tuple[int, int, int]]]]) -> None:
        self.topics = topics

    @classmethod
    def decode(cls, data: BytesIO) -> MetadataResponseV5:
        reader = _Reader(_rest(data))
        reader.int32()  # throttle time
        for _ in range(reader.int32()):  # brokers: node id, host, port, rack
            reader.int32()
            reader.string()
            reader.int32()
            reader.string()
        reader.string()  # cluster id
        reader.int32()  # controller id
        buffer, unpack_row = reader.data, _PARTITION_ROW.unpack_from
        topics: list[tuple[int, str, bool, list[tuple[int, int, int]]]] = []
        for _ in range(reader.int32()):
            error = reader.int16()
            topic = reader.string() or ""
            internal = buffer[reader.pos] != 0
            reader.pos += 1
            partitions: list[tuple[int, int, int]] = []
            for _ in range(reader.int32()):
                partitions.append(unpack_row(buffer, reader.pos))
                reader.pos += _PARTITION_ROW.size
                reader.skip_int32_array()  # replicas
                reader.skip_int32_array()  # in-sync replicas
                reader.skip_int32_array()  # offline replicas
            topics.append((error, topic, internal, partitions))
        return cls(topics)


class MetadataRequestV5(RequestStruct):  # type: ignore[misc]
    API_KEY = METADATA_KEY
    API_VERSION = 5
    RESPONSE_TYPE = MetadataResponseV5
    SCHEMA = Schema(("topics", Array(String("utf-8"))), ("allow_auto_topic_creation", Boolean))


class TopicMetadata(Request[MetadataRequestV5]):  # type: ignore[misc]
    """Metadata of the named topics, never creating one, v5 only."""

    API_KEY = METADATA_KEY

    def __init__(self, topics: list[str]) -> None:
        self._topics = topics

    def build(self, request_struct_class: type[MetadataRequestV5]) -> MetadataRequestV5:
        return request_struct_class(self._topics, False)


# --- KIP-848: ConsumerGroupDescribe and topic ids ------------------------------------

CONSUMER_GROUP_DESCRIBE_KEY = 69


class _CompactReader(_Reader):
    """Reads the flexible (compact) encodings of KIP-482: varints, compact strings and arrays."""

    __slots__ = ()

    def uvarint(self) -> int:
        value = shift = 0
        while True:
            byte = self.data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7

    def int8(self) -> int:
        value = self.data[self.pos]
        self.pos += 1
        return value - 256 if value > 127 else value

    def boolean(self) -> bool:
        return self.int8() != 0

    def compact_string(self) -> str | None:
        length = self.uvarint() - 1
        if length < 0:
            return None
        start, self.pos = self.pos, self.pos + length
        return self.data[start : self.pos].decode("utf-8")

    def compact_length(self) -> int:
        """An array's element count (0 for a null array)."""
        return max(0, self.uvarint() - 1)

    def int32_array(self) -> list[int]:
        return [self.int32() for _ in range(self.compact_length())]

    def uuid(self) -> str:
        """A Kafka ``Uuid`` as ``Uuid.toString()`` prints it: URL-safe base64, unpadded."""
        start, self.pos = self.pos, self.pos + 16
        return base64.urlsafe_b64encode(self.data[start : self.pos]).rstrip(b"=").decode("ascii")

    def skip_tags(self) -> None:
        for _ in range(self.uvarint()):
            self.uvarint()  # tag
            self.pos += self.uvarint()  # size, then the value skipped


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


def _assignment(reader: _CompactReader) -> tuple[DescribedTopicPartitions, ...]:
    topics = []
    for _ in range(reader.compact_length()):
        topic_id = reader.uuid()
        name = reader.compact_string() or ""
        partitions = tuple(sorted(reader.int32_array()))
        reader.skip_tags()
        topics.append(DescribedTopicPartitions(topic_id, name, partitions))
    reader.skip_tags()
    return tuple(sorted(topics, key=lambda t: t.topic))


class ConsumerGroupDescribeResponseV0:
    """``ConsumerGroupDescribe`` v0 (KIP-848) answer, decoded into frozen values.

    v1 only adds each member's type (classic or consumer member); v0 is what the
    view needs, and what every broker with consumer-protocol groups offers.
    """

    API_KEY: ClassVar[int] = CONSUMER_GROUP_DESCRIBE_KEY
    API_VERSION: ClassVar[int] = 0

    def __init__(self, throttle_time_ms: int, groups: tuple[DescribedConsumerGroup, ...]) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.groups = groups

    @classmethod
    def decode(cls, data: BytesIO) -> ConsumerGroupDescribeResponseV0:
        reader = _CompactReader(_rest(data))
        throttle = reader.int32()
        groups = []
        for _ in range(reader.compact_length()):
            error_code = reader.int16()
            error_message = reader.compact_string()
            group_id = reader.compact_string() or ""
            state = reader.compact_string() or ""
            group_epoch = reader.int32()
            assignment_epoch = reader.int32()
            assignor = reader.compact_string() or ""
            members = []
            for _ in range(reader.compact_length()):
                member_id = reader.compact_string() or ""
                instance_id = reader.compact_string()
                rack = reader.compact_string()
                member_epoch = reader.int32()
                client_id = reader.compact_string() or ""
                client_host = reader.compact_string() or ""
                subscribed = tuple(
                    reader.compact_string() or "" for _ in range(reader.compact_length())
                )
                regex = reader.compact_string()
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


class ConsumerGroupDescribeRequestV0(RequestStruct):  # type: ignore[misc]
    FLEXIBLE_VERSION = True
    API_KEY = CONSUMER_GROUP_DESCRIBE_KEY
    API_VERSION = 0
    RESPONSE_TYPE = ConsumerGroupDescribeResponseV0
    SCHEMA = Schema(
        ("groups", CompactArray(CompactString("utf-8"))),
        ("include_authorized_operations", Boolean),
        ("tags", TaggedFields),
    )


class ConsumerGroupDescribe(Request[ConsumerGroupDescribeRequestV0]):  # type: ignore[misc]
    """``ConsumerGroupDescribe`` of one consumer-protocol group, v0."""

    API_KEY = CONSUMER_GROUP_DESCRIBE_KEY

    def __init__(self, group_id: str) -> None:
        self._group_id = group_id

    def build(
        self, request_struct_class: type[ConsumerGroupDescribeRequestV0]
    ) -> ConsumerGroupDescribeRequestV0:
        return request_struct_class([self._group_id], False, {})


class TopicIdsResponseV12:
    """``Metadata`` v12 answer reduced to the cluster's topic ids: ``{topic id: topic name}``."""

    API_KEY: ClassVar[int] = METADATA_KEY
    API_VERSION: ClassVar[int] = 12

    def __init__(self, topic_names: dict[str, str]) -> None:
        self.topic_names = topic_names

    @classmethod
    def decode(cls, data: BytesIO) -> TopicIdsResponseV12:
        reader = _CompactReader(_rest(data))
        reader.int32()  # throttle time
        for _ in range(reader.compact_length()):  # brokers: node id, host, port, rack
            reader.int32()
            reader.compact_string()
            reader.int32()
            reader.compact_string()
            reader.skip_tags()
        reader.compact_string()  # cluster id
        reader.int32()  # controller id
        names: dict[str, str] = {}
        for _ in range(reader.compact_length()):
            error = reader.int16()
            name = reader.compact_string()
            topic_id = reader.uuid()
            reader.boolean()  # is internal
            for _ in range(reader.compact_length()):
                reader.pos += 14  # error code, partition, leader, leader epoch
                reader.int32_array()  # replicas
                reader.int32_array()  # in-sync replicas
                reader.int32_array()  # offline replicas
                reader.skip_tags()
            reader.int32()  # topic authorized operations
            reader.skip_tags()
            if not error and name:
                names[topic_id] = name
        return cls(names)


class TopicIdsRequestV12(RequestStruct):  # type: ignore[misc]
    FLEXIBLE_VERSION = True
    API_KEY = METADATA_KEY
    API_VERSION = 12
    RESPONSE_TYPE = TopicIdsResponseV12
    SCHEMA = Schema(
        (
            "topics",
            CompactArray(
                # A Uuid is two int64s (most, then least significant bits); the view
                # always sends a null array (every topic) and never fills these.
                ("topic_id_high", Int64),
                ("topic_id_low", Int64),
                ("name", CompactString("utf-8")),
                ("tags", TaggedFields),
            ),
        ),
        ("allow_auto_topic_creation", Boolean),
        ("include_topic_authorized_operations", Boolean),
        ("tags", TaggedFields),
    )


class TopicIds(Request[TopicIdsRequestV12]):  # type: ignore[misc]
    """Metadata of every topic of the cluster (topics null), for its topic ids, v12 only."""

    API_KEY = METADATA_KEY

    def build(self, request_struct_class: type[TopicIdsRequestV12]) -> TopicIdsRequestV12:
        return request_struct_class(None, False, False, {})
