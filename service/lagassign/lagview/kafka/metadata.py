"""``Metadata``: v5 of the wanted topics (partitions and leaders), v12 of every topic
(the cluster's topic ids, v10+, which the broker plugin's requests name topics by).

v5 is the layout aiokafka ships, read by a decoder written for it (one row per
partition: aiokafka's generic decoding would take most of a refresh); v12 is
flexible (KIP-482) and reduced to the topic ids.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from io import BytesIO
from typing import ClassVar

from aiokafka.protocol.types import (  # type: ignore[import-untyped]
    Array,
    Boolean,
    CompactArray,
    CompactString,
    Int64,
    String,
    TaggedFields,
)

from lagassign.lagview.kafka.wire import (
    CompactReader,
    OneVersion,
    Reader,
    request_struct,
    rest,
)

METADATA_KEY = 3

_PARTITION_ROW = struct.Struct(">hii")  # error code, partition, leader


def _skip_to_topics(reader: Reader) -> None:
    """Past what comes before the topics of a ``Metadata`` answer (v5 and v12 alike, in
    the encoding ``reader`` reads): throttle time, brokers, cluster id, controller id."""
    reader.int32()  # throttle time
    for _ in range(reader.length()):  # brokers: node id, host, port, rack
        reader.int32()
        reader.string()
        reader.int32()
        reader.string()
        reader.skip_tags()
    reader.string()  # cluster id
    reader.int32()  # controller id


@dataclass
class MetadataResponseV5:
    """``Metadata`` v5 answer, reduced to what the view reads.

    ``topics``: [(error_code, topic, is_internal, [(error_code, partition, leader)])].
    """

    API_KEY: ClassVar[int] = METADATA_KEY
    API_VERSION: ClassVar[int] = 5

    topics: list[tuple[int, str, bool, list[tuple[int, int, int]]]]

    @classmethod
    def decode(cls, data: BytesIO) -> MetadataResponseV5:
        reader = Reader(rest(data))
        _skip_to_topics(reader)
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


MetadataRequestV5 = request_struct(
    MetadataResponseV5,
    ("topics", Array(String("utf-8"))),
    ("allow_auto_topic_creation", Boolean),
)


@dataclass
class TopicIdsResponseV12:
    """``Metadata`` v12 answer reduced to the cluster's topic ids: ``{topic id: topic name}``."""

    API_KEY: ClassVar[int] = METADATA_KEY
    API_VERSION: ClassVar[int] = 12

    topic_names: dict[str, str]

    @classmethod
    def decode(cls, data: BytesIO) -> TopicIdsResponseV12:
        reader = CompactReader(rest(data))
        _skip_to_topics(reader)
        names: dict[str, str] = {}
        for _ in range(reader.length()):
            error = reader.int16()
            name = reader.string()
            topic_id = reader.uuid()
            reader.boolean()  # is internal
            for _ in range(reader.length()):
                reader.pos += 14  # error code, partition, leader, leader epoch
                reader.skip_int32_array()  # replicas
                reader.skip_int32_array()  # in-sync replicas
                reader.skip_int32_array()  # offline replicas
                reader.skip_tags()
            reader.int32()  # topic authorized operations
            reader.skip_tags()
            if not error and name:
                names[topic_id] = name
        return cls(names)


TopicIdsRequestV12 = request_struct(
    TopicIdsResponseV12,
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
    flexible=True,
)


def topic_metadata(topics: list[str]) -> OneVersion:
    """Metadata v5 of the named topics, never creating one."""
    return OneVersion(MetadataRequestV5, topics, False)


def topic_ids() -> OneVersion:
    """Metadata v12 of every topic of the cluster (topics null), for its topic ids."""
    return OneVersion(TopicIdsRequestV12, None, False, False, {})
