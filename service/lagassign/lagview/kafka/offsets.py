"""Log start and end offsets of topics, read once per refresh for every group.

One ``Metadata`` request names the partitions of every wanted topic and their
leaders; then, per topic and concurrently, a group-less aiokafka consumer reads
the log start offsets, the high watermarks and, when a ``read_committed`` group
reads the topic, the last stable offsets, under the topic's own timeout. A topic
that does not answer in time, and a partition without a leader, keep their last
good values, marked stale; they never hold up the other topics.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition  # type: ignore[import-untyped]
from aiokafka.errors import (  # type: ignore[import-untyped]
    IncompatibleBrokerVersion,
    KafkaError,
    for_code,
)
from aiokafka.protocol.metadata import MetadataRequest  # type: ignore[import-untyped]

from lagassign.lagview.errors import LagViewError, TopicOffsetsError
from lagassign.lagview.kafka.metadata import topic_metadata


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
    """A topic as ``Metadata`` names it: its partitions and which of them have a leader.

    ``error`` names the Metadata error of a topic the cluster did not describe
    (``UnknownTopicOrPartitionError`` for a topic that does not exist).
    """

    topic: str
    partitions: tuple[int, ...]
    leaderless: frozenset[int]
    error: str | None = None

    @property
    def exists(self) -> bool:
        return self.error is None


class OffsetReader:
    """Reads topic offsets with two group-less consumers, keeping the last good values.

    ``uncommitted`` reads log start offsets and high watermarks;
    ``committed`` (isolation ``read_committed``) reads last stable offsets.
    """

    def __init__(
        self,
        client: Any,
        uncommitted: AIOKafkaConsumer,
        committed: AIOKafkaConsumer,
        timeout_s: float,
        last: dict[str, TopicOffsets] | None = None,
    ) -> None:
        self._client = client
        self._uncommitted = uncommitted
        self._committed = committed
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
                layouts[topic] = TopicLayout(topic, (), frozenset(), for_code(error).__name__)
                continue
            ids = tuple(sorted(p[1] for p in partitions))
            leaderless = frozenset(p[1] for p in partitions if p[2] < 0)
            layouts[topic] = TopicLayout(topic, ids, leaderless)
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
        if not layout.exists:
            return TopicOffsets(layout.topic, {}, exists=False, error=layout.error)
        led = [
            TopicPartition(layout.topic, p) for p in layout.partitions if p not in layout.leaderless
        ]
        try:
            async with asyncio.timeout(self._timeout_s):
                start, high, last_stable = await asyncio.gather(
                    self._uncommitted.beginning_offsets(led),
                    self._uncommitted.end_offsets(led),
                    self._committed.end_offsets(led) if stable else _no_offsets(),
                )
        except TimeoutError:
            return self.stale(layout.topic, f"offsets of {layout.topic!r} timed out")
        except KafkaError as exc:
            return self.stale(layout.topic, str(TopicOffsetsError(layout.topic, repr(exc))))
        last = self._last.get(layout.topic)
        partitions: dict[int, PartitionOffsets] = {}
        for tp in led:
            partitions[tp.partition] = PartitionOffsets(
                start.get(tp), high.get(tp), last_stable.get(tp) if stable else None
            )
        for p in layout.leaderless:
            kept = last.partitions.get(p) if last is not None else None
            partitions[p] = (
                _mark_stale(kept) if kept is not None else PartitionOffsets(None, None, None, True)
            )
        error = (
            f"{len(layout.leaderless)} partition(s) without a leader" if layout.leaderless else None
        )
        return TopicOffsets(layout.topic, partitions, error=error)


def _mark_stale(offsets: PartitionOffsets) -> PartitionOffsets:
    if offsets.stale:
        return offsets
    return PartitionOffsets(offsets.log_start, offsets.high_watermark, offsets.last_stable, True)


async def _no_offsets() -> dict[TopicPartition, int]:
    return {}
