"""The view's own response decoders read exactly what aiokafka's generic decoding reads."""

from __future__ import annotations

from io import BytesIO

from aiokafka.protocol.commit import OffsetFetchResponse_v3  # type: ignore[import-untyped]
from aiokafka.protocol.metadata import MetadataResponse_v5  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.lagview.protocol import MetadataResponseV5, OffsetFetchResponseV3

names = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
int16 = st.integers(-(2**15), 2**15 - 1)
int32 = st.integers(-(2**31), 2**31 - 1)
int64 = st.integers(-(2**63), 2**63 - 1)

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
