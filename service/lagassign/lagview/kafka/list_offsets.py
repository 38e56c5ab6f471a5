"""``ListOffsets`` v3: the log start, high watermark or last stable offset of one topic's
partitions on one leader, encoded and decoded by hand.

A refresh asks this of every partition of every topic the tracked groups read (two or
three times each); aiokafka's consumer did it through its generic encoding and decoding
and a ``TopicPartition`` and a debug log call per partition: about 170 ms of CPU per
refresh at 10,000 partitions, on the lag view's thread, holding the interpreter the
HTTP routes need.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from io import BytesIO
from typing import ClassVar

from aiokafka.protocol.api import RequestStruct  # type: ignore[import-untyped]
from aiokafka.protocol.types import Schema  # type: ignore[import-untyped]

from lagassign.lagview.kafka.wire import INT16, INT32, OneVersion, Reader, rest

LIST_OFFSETS_KEY = 2
#: The timestamps ``ListOffsets`` reads at: the log start and the end.
EARLIEST = -2
LATEST = -1
#: The isolation levels: the high watermark, or the last stable offset.
READ_UNCOMMITTED = 0
READ_COMMITTED = 1

_HEAD = struct.Struct(">ibi")  # replica id, isolation level, topic count
_ASKED = struct.Struct(">iq")  # partition, timestamp
_ANSWERED = struct.Struct(">ihqq")  # partition, error code, timestamp, offset


@dataclass
class ListOffsetsResponseV3:
    """``ListOffsets`` v3 answer: ``offsets`` is topic -> partition -> offset for the
    partitions answered without error, ``errors`` the others as (topic, partition, code)."""

    API_KEY: ClassVar[int] = LIST_OFFSETS_KEY
    API_VERSION: ClassVar[int] = 3

    offsets: dict[str, dict[int, int]]
    errors: list[tuple[str, int, int]]

    @classmethod
    def decode(cls, data: BytesIO) -> ListOffsetsResponseV3:
        reader = Reader(rest(data))
        reader.int32()  # throttle time
        buffer, unpack_row, size = reader.data, _ANSWERED.unpack_from, _ANSWERED.size
        offsets: dict[str, dict[int, int]] = {}
        errors: list[tuple[str, int, int]] = []
        for _ in range(reader.length()):
            topic = reader.string() or ""
            found = offsets[topic] = {}
            for _ in range(reader.length()):
                partition, error, _timestamp, offset = unpack_row(buffer, reader.pos)
                reader.pos += size
                if error:
                    errors.append((topic, partition, error))
                else:
                    found[partition] = offset
        return cls(offsets, errors)


class ListOffsetsRequestV3(RequestStruct):  # type: ignore[misc]
    """``ListOffsets`` v3 of one topic's ``partitions`` at ``timestamp``, as a consumer
    (replica id -1) reading at ``isolation``."""

    API_KEY = LIST_OFFSETS_KEY
    API_VERSION = 3
    RESPONSE_TYPE = ListOffsetsResponseV3
    SCHEMA = Schema()  # encoded by hand (encode)

    def __init__(
        self, topic: str, partitions: Sequence[int], timestamp: int, isolation: int
    ) -> None:
        self.topic = topic
        self.partitions = partitions
        self.timestamp = timestamp
        self.isolation = isolation

    def encode(self) -> bytes:
        name = self.topic.encode("utf-8")
        pack, timestamp = _ASKED.pack, self.timestamp
        return b"".join(
            (
                _HEAD.pack(-1, self.isolation, 1),
                INT16.pack(len(name)),
                name,
                INT32.pack(len(self.partitions)),
                *(pack(p, timestamp) for p in self.partitions),
            )
        )

    def __repr__(self) -> str:
        return (
            f"ListOffsetsRequestV3({self.topic!r}, {len(self.partitions)} partitions,"
            f" timestamp {self.timestamp}, isolation {self.isolation})"
        )


def list_offsets(
    topic: str, partitions: Sequence[int], timestamp: int, isolation: int = READ_UNCOMMITTED
) -> OneVersion:
    """``ListOffsets`` v3 of ``partitions`` of ``topic`` (all led by the node it is sent to)."""
    return OneVersion(ListOffsetsRequestV3, topic, partitions, timestamp, isolation)
