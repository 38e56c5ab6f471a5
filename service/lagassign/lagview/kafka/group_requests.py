"""The group requests the view sends for each group: ``ListGroups`` v5, ``DescribeGroups``
v4 and ``OffsetFetch`` v3, each of one version (:class:`~.wire.OneVersion`).

- ``ListGroups`` v5 reports each group's state and type (``classic`` or ``consumer``,
  KIP-848) in the one listing request.
- ``DescribeGroups`` v4 is the first version that reports each member's
  ``group.instance.id`` (aiokafka stops at v3, and its v3 request is paired with the
  v2 response layout, which is why the view describes one group per call and asks
  for v4 when the broker offers it).
- ``OffsetFetch`` v3 (every committed offset of a group): the layout aiokafka ships,
  read by a decoder written for it. It is one of the large answers (one row per
  partition, 100,000 rows a refresh for a big fleet) and aiokafka's generic
  field-by-field decoding would take most of a refresh.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from io import BytesIO
from typing import ClassVar

from aiokafka.protocol.types import (  # type: ignore[import-untyped]
    Array,
    Boolean,
    Bytes,
    CompactArray,
    CompactString,
    Int16,
    Int32,
    String,
    TaggedFields,
)

from lagassign.lagview.kafka.wire import (
    INT16,
    OneVersion,
    Reader,
    request_struct,
    response_struct,
    rest,
)

LIST_GROUPS_KEY = 16
DESCRIBE_GROUPS_KEY = 15
OFFSET_FETCH_KEY = 9

_OFFSET_ROW = struct.Struct(">iqh")  # partition, committed offset, metadata length


ListGroupsResponseV5 = response_struct(
    LIST_GROUPS_KEY,
    5,
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


ListGroupsRequestV5 = request_struct(
    ListGroupsResponseV5,
    ("states_filter", CompactArray(CompactString("utf-8"))),
    ("types_filter", CompactArray(CompactString("utf-8"))),
    ("tags", TaggedFields),
    flexible=True,
)


def list_groups_v5() -> OneVersion:
    """ListGroups of every state and type."""
    return OneVersion(ListGroupsRequestV5, [], [], {})


DescribeGroupsResponseV4 = response_struct(
    DESCRIBE_GROUPS_KEY,
    4,
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


DescribeGroupsRequestV4 = request_struct(
    DescribeGroupsResponseV4,
    ("groups", Array(String("utf-8"))),
    ("include_authorized_operations", Boolean),
)


def describe_groups_v4(group_id: str) -> OneVersion:
    """DescribeGroups of one group."""
    return OneVersion(DescribeGroupsRequestV4, [group_id], False)


@dataclass
class OffsetFetchResponseV3:
    """``OffsetFetch`` v3 answer, decoded straight into what the view keeps.

    ``offsets``: topic -> partition -> committed offset (-1: none);
    ``partition_errors``: (topic, partition, error code) of the rows that carry
    one; ``error_code``: the group-level error. The offset metadata strings are
    skipped.
    """

    API_KEY: ClassVar[int] = OFFSET_FETCH_KEY
    API_VERSION: ClassVar[int] = 3

    throttle_time_ms: int
    offsets: dict[str, dict[int, int]]
    partition_errors: list[tuple[str, int, int]]
    error_code: int

    @classmethod
    def decode(cls, data: BytesIO) -> OffsetFetchResponseV3:
        reader = Reader(rest(data))
        throttle = reader.int32()
        buffer, unpack_row, unpack_error = reader.data, _OFFSET_ROW.unpack_from, INT16.unpack_from
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


OffsetFetchRequestV3 = request_struct(
    OffsetFetchResponseV3,
    ("consumer_group", String("utf-8")),
    ("topics", Array(("topic", String("utf-8")), ("partitions", Array(Int32)))),
)


def offset_fetch_all(group_id: str) -> OneVersion:
    """Every committed offset of one group (``topics`` null)."""
    return OneVersion(OffsetFetchRequestV3, group_id, None)
