"""Log start and end offsets of topics, read once per refresh for every group.

One ``Metadata`` request names the partitions of every wanted topic and their
leaders; then, per topic and concurrently, ``ListOffsets`` requests to each leader
(:mod:`.list_offsets`, encoded and decoded by hand) read the log start offsets, the
high watermarks and, when a ``read_committed`` group reads the topic, the last
stable offsets, under the topic's own timeout. A topic that does not answer in
time or answers an error, and a partition without a leader, keep their last good
values, marked stale; they never hold up the other topics.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aiokafka.errors import (  # type: ignore[import-untyped]
    IncompatibleBrokerVersion,
    KafkaError,
    for_code,
)
from aiokafka.protocol.metadata import MetadataRequest  # type: ignore[import-untyped]

from lagassign.lagview.errors import LagViewError, TopicOffsetsError
from lagassign.lagview.kafka.list_offsets import (
    EARLIEST,
    LATEST,
    READ_COMMITTED,
    READ_UNCOMMITTED,
    ListOffsetsResponseV3,
    list_offsets,
)
from lagassign.lagview.kafka.metadata import topic_metadata

#: ``ListOffsets`` errors that pass once the leader is known and ready, so the topic is
#: asked again (on new metadata) within its timeout: UNKNOWN_TOPIC_OR_PARTITION (a topic
#: just created), LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
#: UNKNOWN_LEADER_EPOCH, OFFSET_NOT_AVAILABLE (a leader just elected).
NOT_READY_CODES = frozenset({3, 5, 6, 74, 75, 78})
NOT_READY_BACKOFF_S = 0.05


@dataclass(frozen=True, slots=True)
class PartitionOffsets:
    """A partition's log start, high watermark and last stable offset (``None``: unknown)."""

    log_start: int | None
    high_watermark: int | None
    last_stable: int | None
    stale: bool = False


@dataclass(frozen=True, slots=True)
class TopicOffsets:
    """Every known partition of one topic; ``exists`` is False for a topic the cluster lacks."""

    topic: str
    partitions: Mapping[int, PartitionOffsets] = field(default_factory=dict)
    exists: bool = True
    error: str | None = None


@dataclass(frozen=True, slots=True)
class TopicLayout:
    """A topic as ``Metadata`` names it: partition -> the node id of its leader (-1: none).

    ``error`` names the Metadata error of a topic the cluster did not describe
    (``UnknownTopicOrPartitionError`` for a topic that does not exist).
    """

    topic: str
    leaders: Mapping[int, int]
    error: str | None = None

    @property
    def exists(self) -> bool:
        return self.error is None

    @property
    def leaderless(self) -> frozenset[int]:
        return frozenset(p for p, leader in self.leaders.items() if leader < 0)

    def led_by(self) -> dict[int, list[int]]:
        """Leader -> its partitions, in order (the partitions with a leader only)."""
        out: dict[int, list[int]] = {}
        for partition in sorted(self.leaders):
            leader = self.leaders[partition]
            if leader >= 0:
                out.setdefault(leader, []).append(partition)
        return out


class OffsetReader:
    """Reads topic offsets through ``client`` (aiokafka's), keeping the last good values."""

    def __init__(
        self,
        client: Any,
        timeout_s: float,
        last: dict[str, TopicOffsets] | None = None,
    ) -> None:
        self._client = client
        self._timeout_s = timeout_s
        # The last values read per topic; the owner may keep it across readers
        # (the lag view builds a new reader after an outage).
        self._last: dict[str, TopicOffsets] = {} if last is None else last

    def last_good(self, topic: str) -> TopicOffsets | None:
        """The last values read for ``topic``, if any."""
        return self._last.get(topic)

    async def layout(self, topics: list[str]) -> dict[str, TopicLayout]:
        """One ``Metadata`` request for ``topics`` (never auto-creates them)."""
        if not topics:
            return {}
        node = self._client.get_random_node()
        if node is None:
            raise LagViewError("no broker known to send Metadata to")
        async with asyncio.timeout(self._timeout_s):
            try:
                response = await self._client.send(node, topic_metadata(sorted(topics)))
            except (NotImplementedError, IncompatibleBrokerVersion):
                request = MetadataRequest(sorted(topics), allow_auto_topic_creation=False)
                response = await self._client.send(node, request)
        layouts: dict[str, TopicLayout] = {}
        for entry in response.topics:
            error, topic, partitions = entry[0], entry[1], entry[3]
            if error and not partitions:
                layouts[topic] = TopicLayout(topic, {}, for_code(error).__name__)
                continue
            layouts[topic] = TopicLayout(topic, {p[1]: p[2] for p in partitions})
        return layouts

    async def read(
        self, layouts: Mapping[str, TopicLayout], stable: frozenset[str]
    ) -> dict[str, TopicOffsets]:
        """Offsets of every topic in ``layouts``; last stable offsets for ``stable`` topics.

        Never raises for one topic: a topic that fails keeps its last good
        values, marked stale, with ``error`` set.
        """
        names = sorted(layouts)
        results = await asyncio.gather(
            *(self._read_topic(layouts[t], t in stable) for t in names),
        )
        out = dict(zip(names, results, strict=True))
        self._last.update(out)
        return out

    def stale(self, topic: str, reason: str) -> TopicOffsets:
        """The last good values of ``topic``, every partition marked stale."""
        last = self._last.get(topic)
        if last is None:
            return TopicOffsets(topic, {}, error=reason)
        partitions = {p: _mark_stale(o) for p, o in last.partitions.items()}
        return TopicOffsets(topic, partitions, last.exists, error=reason)

    async def _read_topic(self, layout: TopicLayout, stable: bool) -> TopicOffsets:
        topic = layout.topic
        if not layout.exists:
            return TopicOffsets(topic, {}, exists=False, error=layout.error)
        asked = [(EARLIEST, READ_UNCOMMITTED), (LATEST, READ_UNCOMMITTED)]
        if stable:
            asked.append((LATEST, READ_COMMITTED))
        waited_for: NotReady | None = None
        try:
            async with asyncio.timeout(self._timeout_s):
                while True:
                    try:
                        led_by = layout.led_by()
                        answers = await self._ask(topic, led_by, asked)
                        break
                    except NotReady as exc:
                        # A leader moving or being elected: ask again on new metadata.
                        waited_for = exc
                        await asyncio.sleep(NOT_READY_BACKOFF_S)
                        layout = (await self.layout([topic]))[topic]
                        if not layout.exists:
                            return TopicOffsets(topic, {}, exists=False, error=layout.error)
        except TimeoutError:
            answered = "" if waited_for is None else f" (last: {waited_for})"
            return self.stale(topic, f"offsets of {topic!r} timed out{answered}")
        except (KafkaError, LagViewError, NotImplementedError) as exc:
            return self.stale(topic, str(TopicOffsetsError(topic, repr(exc))))
        # One answer per (timestamp, isolation) and leader, in the order asked.
        read: list[dict[int, int]] = []
        for i in range(len(asked)):
            merged: dict[int, int] = {}
            for answer in answers[i * len(led_by) : (i + 1) * len(led_by)]:
                merged.update(answer)
            read.append(merged)
        start, high = read[0], read[1]
        last_stable = read[2] if stable else {}
        partitions: dict[int, PartitionOffsets] = {}
        for led in led_by.values():
            for p in led:
                partitions[p] = PartitionOffsets(
                    start.get(p), high.get(p), last_stable.get(p) if stable else None
                )
        last = self._last.get(topic)
        leaderless = layout.leaderless
        for p in leaderless:
            kept = last.partitions.get(p) if last is not None else None
            partitions[p] = (
                _mark_stale(kept) if kept is not None else PartitionOffsets(None, None, None, True)
            )
        error = f"{len(leaderless)} partition(s) without a leader" if leaderless else None
        return TopicOffsets(topic, partitions, error=error)

    async def _ask(
        self, topic: str, led_by: dict[int, list[int]], asked: list[tuple[int, int]]
    ) -> list[dict[int, int]]:
        """Each leader in ``led_by`` (leader -> its partitions of ``topic``) asked for its
        partitions at each of ``asked``, in that order (per timestamp and isolation, per
        leader)."""
        return await asyncio.gather(
            *(
                self._list(node, topic, partitions, at)
                for at in asked
                for node, partitions in led_by.items()
            )
        )

    async def _list(
        self, node: int, topic: str, partitions: list[int], at: tuple[int, int]
    ) -> dict[int, int]:
        """Partition -> offset at ``at`` (timestamp, isolation) from ``node``, their leader;
        a partition answered with an error raises it (:class:`NotReady` if it passes)."""
        timestamp, isolation = at
        response: ListOffsetsResponseV3 = await self._client.send(
            node, list_offsets(topic, partitions, timestamp, isolation)
        )
        for _, partition, code in response.errors:
            if code in NOT_READY_CODES:
                raise NotReady(f"{for_code(code).__name__}: {topic}-{partition}")
            raise for_code(code)(f"{topic}-{partition}")
        return response.offsets.get(topic, {})


class NotReady(Exception):
    """A partition whose offsets its leader cannot give yet (see :data:`NOT_READY_CODES`)."""


def _mark_stale(offsets: PartitionOffsets) -> PartitionOffsets:
    if offsets.stale:
        return offsets
    return PartitionOffsets(offsets.log_start, offsets.high_watermark, offsets.last_stable, True)
