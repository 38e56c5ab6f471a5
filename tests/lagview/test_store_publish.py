"""A refresh's snapshots are stored at once: a reader's mapping is replaced, never changed."""

from __future__ import annotations

from datetime import UTC, datetime

from lagassign.lagview.kafka.clients import GroupRead, KafkaClients
from lagassign.lagview.kafka.groups import GroupDescription
from lagassign.lagview.kafka.offsets import PartitionOffsets, TopicOffsets
from lagassign.lagview.store import SnapshotStore

T0 = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
PARTITIONS = 2_000


def read(group_id: str) -> GroupRead:
    committed = {"t": {p: p for p in range(PARTITIONS)}}
    return GroupRead(group_id, GroupDescription(group_id, "Empty", "consumer", None, ()), committed)


OFFSETS = {"t": TopicOffsets("t", {p: PartitionOffsets(0, 2 * p, None) for p in range(PARTITIONS)})}


def test_publish_replaces_the_cache_whole_with_what_snapshot_of_gives() -> None:
    store = SnapshotStore(KafkaClients("127.0.0.1:1"), groups=["a", "b"])
    reads = [read("a"), read("b")]
    before = store.snapshots()
    fresh = store.publish(reads, OFFSETS, T0)
    assert [s.group_id for s in fresh] == ["a", "b"]
    assert dict(before) == {}  # what a reader held is left as it was
    for r in reads:
        assert store.snapshot(r.group_id) == store.snapshot_of(r, OFFSETS, T0)
    stored = store.snapshot("a")
    assert stored is not None
    assert sum(p.lag for p in stored.partitions if p.lag is not None) == sum(range(PARTITIONS))
    held = store.snapshots()
    store.forget_untracked({"a"})
    assert sorted(held) == ["a", "b"]
    assert sorted(store.snapshots()) == ["a"]
