"""``ListOffsets`` v3 by hand: the request encodes as aiokafka's does, the answer decodes
to what aiokafka's generic decoding reads."""

from __future__ import annotations

from io import BytesIO

from aiokafka.protocol.offset import (  # type: ignore[import-untyped]
    OffsetRequest_v3,
    OffsetResponse_v3,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.lagview.kafka.list_offsets import (
    EARLIEST,
    LATEST,
    ListOffsetsRequestV3,
    ListOffsetsResponseV3,
)
from tests.lagview.wire_values import int16, int32, int64, names

answered = st.lists(st.tuples(int32, int16, int64, int64), max_size=8, unique_by=lambda r: r[0])
answered_topics = st.lists(st.tuples(names, answered), max_size=5, unique_by=lambda t: t[0])


@settings(max_examples=60)
@given(throttle=int32, topics=answered_topics)
def test_the_answer_decodes_as_aiokafkas(
    throttle: int, topics: list[tuple[str, list[tuple[int, int, int, int]]]]
) -> None:
    encoded = OffsetResponse_v3(throttle, topics).encode()
    generic = OffsetResponse_v3.decode(BytesIO(encoded))
    ours = ListOffsetsResponseV3.decode(BytesIO(encoded))
    assert ours.offsets == {
        topic: {p: offset for p, error, _, offset in rows if not error}
        for topic, rows in generic.topics
    }
    assert ours.errors == [
        (topic, p, error) for topic, rows in generic.topics for p, error, _, _ in rows if error
    ]


@settings(max_examples=60)
@given(
    topic=names,
    partitions=st.lists(int32, max_size=20),
    timestamp=st.sampled_from([EARLIEST, LATEST]),
    isolation=st.sampled_from([0, 1]),
)
def test_the_request_encodes_as_aiokafkas(
    topic: str, partitions: list[int], timestamp: int, isolation: int
) -> None:
    ours = ListOffsetsRequestV3(topic, partitions, timestamp, isolation)
    generic = OffsetRequest_v3(-1, isolation, [(topic, [(p, timestamp) for p in partitions])])
    assert ours.encode() == generic.encode()
