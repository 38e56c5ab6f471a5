"""Topic offsets under faults: a slow topic or a leaderless partition stalls nothing.

Kafka is replaced here by fakes that inject the faults (a topic that never
answers, a partition without a leader); the real reads are proven against the
broker in ``test_lag_exact.py``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any, cast

from lagassign.lagview.kafka.list_offsets import (
    EARLIEST,
    READ_COMMITTED,
    ListOffsetsRequestV3,
    ListOffsetsResponseV3,
)
from lagassign.lagview.kafka.offsets import OffsetReader, PartitionOffsets, TopicLayout
from lagassign.lagview.kafka.wire import OneVersion

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


class OffsetsClient(MetadataClient):
    """Answers ``ListOffsets``: log start = 10 * partition, end = 100 + partition + shift,
    last stable = the end - 50; ``hang`` topics never answer, ``refuse`` ones answer
    ``refuse[topic]`` (an error code per answer, none once the list is spent) for every
    partition. Metadata requests get ``entries``."""

    def __init__(
        self,
        shift: int = 0,
        hang: Sequence[str] = (),
        refuse: Mapping[str, list[int]] | None = None,
        entries: list[tuple[object, ...]] | None = None,
    ) -> None:
        super().__init__(entries or [])
        self.shift = shift
        self.hang = set(hang)
        self.refuse = dict(refuse or {})
        self.asked: list[tuple[int, str, tuple[int, ...]]] = []

    async def send(self, node: int, request: object) -> Any:
        if not isinstance(request, OneVersion) or request.struct is not ListOffsetsRequestV3:
            return await super().send(node, request)
        fields: tuple[str, list[int], int, int] = cast(Any, request.fields)
        topic, partitions, timestamp, isolation = fields
        self.asked.append((node, topic, tuple(partitions)))
        if topic in self.hang:
            await asyncio.Event().wait()
        if self.refuse.get(topic):
            code = self.refuse[topic].pop(0)
            return ListOffsetsResponseV3({topic: {}}, [(topic, p, code) for p in partitions])
        if timestamp == EARLIEST:
            return ListOffsetsResponseV3({topic: {p: 10 * p for p in partitions}}, [])
        stable = 50 if isolation == READ_COMMITTED else 0
        end = {p: 100 + p + self.shift - stable for p in partitions}
        return ListOffsetsResponseV3({topic: end}, [])


def layout(topic: str, leaders: Sequence[int], error: str | None = None) -> TopicLayout:
    return TopicLayout(topic, dict(enumerate(leaders)), error)


def entry(topic: str, leaders: list[int], error: int = 0) -> tuple[object, ...]:
    partitions: list[tuple[object, ...]] = [
        (0, p, leader, [1], [1], []) for p, leader in enumerate(leaders)
    ]
    return (error, topic, False, partitions)


def test_layout_names_partitions_leaderless_ones_and_missing_topics() -> None:
    client = MetadataClient([entry("a", [1, -1, 2]), entry("gone", [], error=3)])
    reader = OffsetReader(client, TIMEOUT_S)
    layouts = asyncio.run(reader.layout(["a", "gone"]))
    assert layouts["a"] == layout("a", [1, -1, 2])
    assert layouts["a"].leaderless == frozenset({1})
    assert layouts["a"].led_by() == {1: [0], 2: [2]}
    assert not layouts["gone"].exists
    assert layouts["gone"].error == "UnknownTopicOrPartitionError"
    assert asyncio.run(reader.layout([])) == {}
    assert client.sent == 1


def test_each_leader_is_asked_for_its_own_partitions() -> None:
    client = OffsetsClient()
    reader = OffsetReader(client, TIMEOUT_S)
    read = asyncio.run(reader.read({"t": layout("t", [1, 2, 1])}, frozenset({"t"})))["t"]
    assert read.partitions == {
        0: PartitionOffsets(0, 100, 50),
        1: PartitionOffsets(10, 101, 51),
        2: PartitionOffsets(20, 102, 52),
    }
    # Log start, high watermark, last stable offset: once per leader each.
    assert sorted(client.asked) == sorted([(1, "t", (0, 2)), (2, "t", (1,))] * 3)


def test_a_topic_that_never_answers_keeps_its_last_values_and_stalls_nothing() -> None:
    layouts = {"fast": layout("fast", [1, 1]), "slow": layout("slow", [1])}
    healthy = OffsetReader(OffsetsClient(), TIMEOUT_S)
    first = asyncio.run(healthy.read(layouts, frozenset()))
    assert first["slow"].partitions[0] == PartitionOffsets(0, 100, None)

    last = dict(first)
    hanging = OffsetReader(OffsetsClient(5, hang=["slow"]), TIMEOUT_S, last)
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


def test_a_partition_answered_with_an_error_keeps_its_topics_last_values() -> None:
    layouts = {"ok": layout("ok", [1]), "denied": layout("denied", [1, 1])}
    reader = OffsetReader(OffsetsClient(), TIMEOUT_S)
    asyncio.run(reader.read(layouts, frozenset()))
    last = {t: o for t in layouts if (o := reader.last_good(t)) is not None}
    # TOPIC_AUTHORIZATION_FAILED: asking again would not help.
    reader = OffsetReader(OffsetsClient(5, refuse={"denied": [29] * 2}), TIMEOUT_S, last)
    read = asyncio.run(reader.read(layouts, frozenset()))
    assert read["ok"].partitions == {0: PartitionOffsets(0, 105, None)}
    assert read["denied"].partitions == {
        0: PartitionOffsets(0, 100, None, stale=True),
        1: PartitionOffsets(10, 101, None, stale=True),
    }
    assert read["denied"].error is not None
    assert "TopicAuthorizationFailedError" in read["denied"].error


def test_a_leader_not_ready_yet_is_asked_again_on_new_metadata() -> None:
    # NOT_LEADER_OR_FOLLOWER, then OFFSET_NOT_AVAILABLE (two asks a round: log start,
    # end), then the leader answers.
    client = OffsetsClient(refuse={"t": [6, 6, 78, 78]}, entries=[entry("t", [2, 2])])
    reader = OffsetReader(client, TIMEOUT_S * 5)
    read = asyncio.run(reader.read({"t": layout("t", [1, 1])}, frozenset()))["t"]
    assert read.partitions == {
        0: PartitionOffsets(0, 100, None),
        1: PartitionOffsets(10, 101, None),
    }
    assert read.error is None
    assert client.sent == 2  # one Metadata after each refused round
    assert {node for node, _, _ in client.asked} == {1, 2}


def test_a_leader_never_ready_times_out_with_what_it_answered() -> None:
    client = OffsetsClient(refuse={"t": [6] * 1000}, entries=[entry("t", [1])])
    read = asyncio.run(OffsetReader(client, TIMEOUT_S).read({"t": layout("t", [1])}, frozenset()))
    assert read["t"].error is not None
    assert "timed out (last: NotLeaderForPartitionError: t-0)" in read["t"].error


def test_a_leaderless_partition_keeps_its_last_values_alone() -> None:
    reader = OffsetReader(OffsetsClient(), TIMEOUT_S)
    asyncio.run(reader.read({"t": layout("t", [1, 1, 1])}, frozenset({"t"})))
    client = OffsetsClient(shift=1)
    last_good = reader.last_good("t")
    assert last_good is not None
    reader = OffsetReader(client, TIMEOUT_S, {"t": last_good})
    read = asyncio.run(reader.read({"t": layout("t", [1, -1, 1])}, frozenset({"t"})))["t"]
    assert {p for _, _, asked in client.asked for p in asked} == {0, 2}
    assert read.partitions == {
        0: PartitionOffsets(0, 101, 51),
        1: PartitionOffsets(10, 101, 51, stale=True),
        2: PartitionOffsets(20, 103, 53),
    }
    assert read.error == "1 partition(s) without a leader"


def test_a_leaderless_partition_never_read_is_unknown() -> None:
    reader = OffsetReader(OffsetsClient(), TIMEOUT_S)
    read = asyncio.run(reader.read({"t": layout("t", [-1, 1])}, frozenset()))["t"]
    assert read.partitions[0] == PartitionOffsets(None, None, None, stale=True)
    assert read.partitions[1] == PartitionOffsets(10, 101, None)


def test_a_missing_topic_is_not_asked_for() -> None:
    client = OffsetsClient()
    reader = OffsetReader(client, TIMEOUT_S)
    gone = layout("gone", [], "UnknownTopicOrPartitionError")
    read = asyncio.run(reader.read({"gone": gone}, frozenset()))["gone"]
    assert (read.exists, read.partitions, client.asked) == (False, {}, [])
