"""A refresh's snapshots are stored at once: a reader's mapping is replaced, never changed.

Before they are, the stalls they show are stamped with their records' time: a reader
never sees a backlog's floor start from 0 while the records say how old it is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from lagassign.lagview.kafka.clients import GroupRead, KafkaClients
from lagassign.lagview.kafka.groups import GroupDescription
from lagassign.lagview.kafka.offsets import PartitionOffsets, TopicOffsets
from lagassign.lagview.store import SnapshotStore

T0 = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
PARTITIONS = 2_000


def read(group_id: str) -> GroupRead:
    committed = {"t": {p: p for p in range(PARTITIONS)}}
    return GroupRead(group_id, GroupDescription(group_id, "Empty", "consumer", None, ()), committed)


AN_HOUR_AGO_MS = round((T0 - timedelta(hours=1)).timestamp() * 1000)


class RecordsAnHourOld(KafkaClients):
    """Every record asked for was written an hour before T0 (no broker: the store's logic only)."""

    def __init__(self) -> None:
        super().__init__("127.0.0.1:1")
        self.store: SnapshotStore | None = None
        self.seen_while_asked: list[int] = []

    async def record_timestamps(
        self, wanted: Mapping[tuple[str, int], int]
    ) -> dict[tuple[str, int], int]:
        assert self.store is not None
        self.seen_while_asked.append(len(self.store.snapshots()))
        return {key: AN_HOUR_AGO_MS for key in wanted}


OFFSETS = {"t": TopicOffsets("t", {p: PartitionOffsets(0, 2 * p, None) for p in range(PARTITIONS)})}


def test_publish_replaces_the_cache_whole_with_what_snapshot_of_gives() -> None:
    clients = RecordsAnHourOld()
    store = clients.store = SnapshotStore(clients, groups=["a", "b"])
    reads = [read("a"), read("b")]
    before = store.snapshots()
    fresh = asyncio.run(store.publish(reads, OFFSETS, T0))
    # The records were asked for before any reader could see a snapshot, once.
    assert clients.seen_while_asked == [0]
    assert [s.group_id for s in fresh] == ["a", "b"]
    assert dict(before) == {}  # what a reader held is left as it was
    for r in reads:
        assert store.snapshot(r.group_id) == store.snapshot_of(r, OFFSETS, T0)
    stored = store.snapshot("a")
    assert stored is not None
    assert sum(p.lag for p in stored.partitions if p.lag is not None) == sum(range(PARTITIONS))
    # From the first snapshot a reader sees: the records' age (64 stalls stamped a refresh).
    assert store.stalls.worst_at_least(stored) == 3_600.0
    held = store.snapshots()
    store.forget_untracked({"a"})
    assert sorted(held) == ["a", "b"]
    assert sorted(store.snapshots()) == ["a"]
