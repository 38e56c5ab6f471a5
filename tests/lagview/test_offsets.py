"""Topic offsets under faults: a slow topic or a leaderless partition stalls nothing.

Kafka is replaced here by fakes that inject the faults (a topic that never
answers, a partition without a leader); the real reads are proven against the
broker in ``test_lag_exact.py``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from types import SimpleNamespace

from aiokafka import TopicPartition  # type: ignore[import-untyped]

from lagassign.lagview.kafka.offsets import OffsetReader, PartitionOffsets, TopicLayout

TIMEOUT_S = 0.2


class MetadataClient:
    """Answers every Metadata request with the given topic entries."""

    def __init__(self, entries: list[tuple[object, ...]]) -> None:
        self.entries = entries
        self.sent = 0

    def get_random_node(self) -> int:
        return 1

    async def send(self, node: int, request: object) -> SimpleNamespace:
        self.sent += 1
        return SimpleNamespace(topics=self.entries)


class OffsetsConsumer:
    """Log start = 10 * partition, end = 100 + partition + shift; ``hang`` topics never answer."""

    def __init__(self, shift: int = 0, hang: Sequence[str] = ()) -> None:
        self.shift = shift
        self.hang = set(hang)
        self.asked: list[TopicPartition] = []

    async def _wait(self, partitions: list[TopicPartition]) -> None:
        self.asked += partitions
        if any(tp.topic in self.hang for tp in partitions):
            await asyncio.Event().wait()

    async def beginning_offsets(
        self, partitions: list[TopicPartition]
    ) -> dict[TopicPartition, int]:
        await self._wait(partitions)
        return {tp: 10 * tp.partition for tp in partitions}

    async def end_offsets(self, partitions: list[TopicPartition]) -> dict[TopicPartition, int]:
        await self._wait(partitions)
        return {tp: 100 + tp.partition + self.shift for tp in partitions}


def entry(topic: str, leaders: list[int], error: int = 0) -> tuple[object, ...]:
    partitions: list[tuple[object, ...]] = [
        (0, p, leader, [1], [1], []) for p, leader in enumerate(leaders)
    ]
    return (error, topic, False, partitions)


def test_layout_names_partitions_leaderless_ones_and_missing_topics() -> None:
    client = MetadataClient([entry("a", [1, -1, 1]), entry("gone", [], error=3)])
    reader = OffsetReader(client, OffsetsConsumer(), OffsetsConsumer(), TIMEOUT_S)
    layouts = asyncio.run(reader.layout(["a", "gone"]))
    assert layouts["a"] == TopicLayout("a", (0, 1, 2), frozenset({1}))
    assert not layouts["gone"].exists
    assert layouts["gone"].error == "UnknownTopicOrPartitionError"
    assert asyncio.run(reader.layout([])) == {}
    assert client.sent == 1


def test_a_topic_that_never_answers_keeps_its_last_values_and_stalls_nothing() -> None:
    fast, slow = TopicLayout("fast", (0, 1), frozenset()), TopicLayout("slow", (0,), frozenset())
    layouts = {"fast": fast, "slow": slow}
    healthy = OffsetReader(None, OffsetsConsumer(), OffsetsConsumer(), TIMEOUT_S)
    first = asyncio.run(healthy.read(layouts, frozenset()))
    assert first["slow"].partitions[0] == PartitionOffsets(0, 100, None)

    last = dict(first)
    hanging = OffsetReader(
        None, OffsetsConsumer(5, hang=["slow"]), OffsetsConsumer(), TIMEOUT_S, last
    )
    started = time.monotonic()
    second = asyncio.run(hanging.read(layouts, frozenset()))
    elapsed = time.monotonic() - started
    assert elapsed < TIMEOUT_S + 1.0
    assert second["fast"].partitions == {
        0: PartitionOffsets(0, 105, None),
        1: PartitionOffsets(10, 106, None),
    }
    assert second["fast"].error is None
    assert second["slow"].partitions == {0: PartitionOffsets(0, 100, None, stale=True)}
    assert second["slow"].error is not None
    assert "timed out" in second["slow"].error


def test_a_leaderless_partition_keeps_its_last_values_alone() -> None:
    reader = OffsetReader(None, OffsetsConsumer(), OffsetsConsumer(shift=-50), TIMEOUT_S)
    all_led = TopicLayout("t", (0, 1, 2), frozenset())
    asyncio.run(reader.read({"t": all_led}, frozenset({"t"})))
    consumer = OffsetsConsumer(shift=1)
    last_good = reader.last_good("t")
    assert last_good is not None
    reader = OffsetReader(None, consumer, OffsetsConsumer(shift=-49), TIMEOUT_S, {"t": last_good})
    one_leaderless = TopicLayout("t", (0, 1, 2), frozenset({1}))
    read = asyncio.run(reader.read({"t": one_leaderless}, frozenset({"t"})))["t"]
    assert {tp.partition for tp in consumer.asked} == {0, 2}
    assert read.partitions == {
        0: PartitionOffsets(0, 101, 51),
        1: PartitionOffsets(10, 101, 51, stale=True),
        2: PartitionOffsets(20, 103, 53),
    }
    assert read.error == "1 partition(s) without a leader"


def test_a_leaderless_partition_never_read_is_unknown() -> None:
    reader = OffsetReader(None, OffsetsConsumer(), OffsetsConsumer(), TIMEOUT_S)
    read = asyncio.run(reader.read({"t": TopicLayout("t", (0, 1), frozenset({0}))}, frozenset()))[
        "t"
    ]
    assert read.partitions[0] == PartitionOffsets(None, None, None, stale=True)
    assert read.partitions[1] == PartitionOffsets(10, 101, None)


def test_a_missing_topic_is_not_asked_for() -> None:
    consumer = OffsetsConsumer()
    reader = OffsetReader(None, consumer, OffsetsConsumer(), TIMEOUT_S)
    gone = TopicLayout("gone", (), frozenset(), "UnknownTopicOrPartitionError")
    read = asyncio.run(reader.read({"gone": gone}, frozenset()))["gone"]
    assert (read.exists, read.partitions, consumer.asked) == (False, {}, [])
