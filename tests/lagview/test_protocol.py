"""The view's own response decoders read exactly what aiokafka's generic decoding reads."""

from __future__ import annotations

import base64
from io import BytesIO
from typing import Any

from aiokafka.protocol.commit import OffsetFetchResponse_v3  # type: ignore[import-untyped]
from aiokafka.protocol.metadata import MetadataResponse_v5  # type: ignore[import-untyped]
from aiokafka.protocol.types import (  # type: ignore[import-untyped]
    CompactArray,
    CompactString,
    Int16,
    Int32,
    Schema,
    TaggedFields,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.lagview.kafka.consumer_group_describe import ConsumerGroupDescribeResponseV0
from lagassign.lagview.kafka.group_requests import OffsetFetchResponseV3
from lagassign.lagview.kafka.groups import consumer_group_answer
from lagassign.lagview.kafka.metadata import MetadataResponseV5
from tests.lagview.wire_values import int16, int32, int64, names

offset_rows = st.lists(st.tuples(int32, int64, st.none() | names, int16), max_size=8)
offset_topics = st.lists(st.tuples(names, offset_rows), max_size=5)


@settings(max_examples=60)
@given(throttle=int32, topics=offset_topics, error=int16)
def test_offset_fetch_v3(
    throttle: int, topics: list[tuple[str, list[tuple[int, int, str | None, int]]]], error: int
) -> None:
    encoded = OffsetFetchResponse_v3(throttle, topics, error).encode()
    generic = OffsetFetchResponse_v3.decode(BytesIO(encoded))
    ours = OffsetFetchResponseV3.decode(BytesIO(encoded))
    assert ours.throttle_time_ms == generic.throttle_time_ms
    assert ours.error_code == generic.error_code
    offsets: dict[str, dict[int, int]] = {}
    errors: list[tuple[str, int, int]] = []
    for topic, rows in generic.topics:
        topic_offsets = offsets.setdefault(topic, {})
        for partition, offset, _metadata, error in rows:
            topic_offsets[partition] = offset
            if error:
                errors.append((topic, partition, error))
    assert ours.offsets == offsets
    assert ours.partition_errors == errors


replicas = st.lists(int32, max_size=3)
partition_rows = st.lists(st.tuples(int16, int32, int32, replicas, replicas, replicas), max_size=6)
metadata_topics = st.lists(st.tuples(int16, names, st.booleans(), partition_rows), max_size=5)
brokers = st.lists(st.tuples(int32, names, int32, st.none() | names), max_size=3)


@settings(max_examples=60)
@given(brokers=brokers, cluster=st.none() | names, controller=int32, topics=metadata_topics)
def test_metadata_v5(
    brokers: list[tuple[int, str, int, str | None]],
    cluster: str | None,
    controller: int,
    topics: list[
        tuple[int, str, bool, list[tuple[int, int, int, list[int], list[int], list[int]]]]
    ],
) -> None:
    encoded = MetadataResponse_v5(0, brokers, cluster, controller, topics).encode()
    generic = MetadataResponse_v5.decode(BytesIO(encoded))
    ours = MetadataResponseV5.decode(BytesIO(encoded))
    assert ours.topics == [
        (error, topic, internal, [(p[0], p[1], p[2]) for p in partitions])
        for error, topic, internal, partitions in generic.topics
    ]


def _described_topics() -> CompactArray:
    return CompactArray(
        ("topic_id", Bytes16()),
        ("topic_name", CompactString("utf-8")),
        ("partitions", CompactArray(Int32)),
        ("tags", TaggedFields),
    )


class Bytes16:
    """A Kafka ``Uuid`` field: 16 raw bytes (aiokafka has no such type)."""

    def encode(self, value: bytes) -> bytes:
        assert len(value) == 16
        return value


CONSUMER_GROUP_DESCRIBE_V0 = Schema(
    ("throttle_time_ms", Int32),
    (
        "groups",
        CompactArray(
            ("error_code", Int16),
            ("error_message", CompactString("utf-8")),
            ("group_id", CompactString("utf-8")),
            ("group_state", CompactString("utf-8")),
            ("group_epoch", Int32),
            ("assignment_epoch", Int32),
            ("assignor_name", CompactString("utf-8")),
            (
                "members",
                CompactArray(
                    ("member_id", CompactString("utf-8")),
                    ("instance_id", CompactString("utf-8")),
                    ("rack_id", CompactString("utf-8")),
                    ("member_epoch", Int32),
                    ("client_id", CompactString("utf-8")),
                    ("client_host", CompactString("utf-8")),
                    ("subscribed_topic_names", CompactArray(CompactString("utf-8"))),
                    ("subscribed_topic_regex", CompactString("utf-8")),
                    ("assignment", Schema(("topics", _described_topics()), ("tags", TaggedFields))),
                    ("target", Schema(("topics", _described_topics()), ("tags", TaggedFields))),
                    ("tags", TaggedFields),
                ),
            ),
            ("authorized_operations", Int32),
            ("tags", TaggedFields),
        ),
    ),
    ("tags", TaggedFields),
)


def test_consumer_group_describe_v0_reads_kafkas_layout() -> None:
    t0 = bytes(range(16))
    t1 = bytes(range(16, 32))
    member: tuple[Any, ...] = (
        "m-1",
        None,
        "eu-1a",
        5,
        "client-1",
        "/127.0.0.1",
        ["t1", "t0"],
        None,
        ([(t1, "t1", [2, 0], {}), (t0, "t0", [1], {})], {}),
        ([(t0, "t0", [1, 3], {})], {}),
        {},
    )
    other: tuple[Any, ...] = (
        "m-0",
        "static-0",
        None,
        4,
        "c",
        "/h",
        ["t0"],
        "t.*",
        ([], {}),
        ([], {}),
        {},
    )
    group: tuple[Any, ...] = (
        0,
        None,
        "orders",
        "Stable",
        7,
        6,
        "lagassign",
        [member, other],
        -(2**31),
        {},
    )
    encoded = CONSUMER_GROUP_DESCRIBE_V0.encode((12, [group], {}))
    decoded = ConsumerGroupDescribeResponseV0.decode(BytesIO(encoded))
    assert decoded.throttle_time_ms == 12
    (g,) = decoded.groups
    assert (g.error_code, g.group_id, g.state, g.group_epoch, g.assignment_epoch, g.assignor) == (
        0,
        "orders",
        "Stable",
        7,
        6,
        "lagassign",
    )
    first, second = g.members
    assert (first.member_id, first.instance_id, first.rack, first.member_epoch) == (
        "m-1",
        None,
        "eu-1a",
        5,
    )
    assert (first.client_id, first.client_host) == ("client-1", "/127.0.0.1")
    assert first.subscribed_topics == ("t1", "t0")
    # Kafka prints a Uuid as URL-safe base64 without padding.
    id0 = base64.urlsafe_b64encode(t0).rstrip(b"=").decode()
    id1 = base64.urlsafe_b64encode(t1).rstrip(b"=").decode()
    assert [(t.topic_id, t.topic, t.partitions) for t in first.assignment] == [
        (id0, "t0", (1,)),
        (id1, "t1", (0, 2)),
    ]
    assert [(t.topic, t.partitions) for t in first.target_assignment] == [("t0", (1, 3))]
    assert (second.instance_id, second.rack, second.subscribed_regex) == ("static-0", None, "t.*")
    described = consumer_group_answer(g)
    assert described.assignment_strategy == "lagassign"
    assert described.topic_ids == {id0: "t0", id1: "t1"}
    assert [m.member_id for m in described.members] == ["m-0", "m-1"]
    assert described.members[1].assignment == {"t0": (1,), "t1": (0, 2)}
    # What the coordinator gives the assignor as owned: the target assignment.
    assert described.members[1].owned == {"t0": (1, 3)}
    assert described.members[1].rack == "eu-1a"
