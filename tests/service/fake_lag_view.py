"""A lag view double for unit tests of the app: holds given snapshots, fails on demand.

It has the attributes and methods of :class:`lagassign.lagview.reader.LagReader`;
integration tests use the real lag view on the real broker instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, datetime

from lagassign.lagview.consumer_index import ConsumerGroupIndex
from lagassign.lagview.rules import ResetPolicy
from lagassign.lagview.snapshot import GroupSnapshot, PartitionLag


def partition_lag(topic: str, partition: int, lag: int | None) -> PartitionLag:
    """A partition committed at 1,000; an unknown lag is an end offset the view could not read."""
    return PartitionLag(
        topic=topic,
        partition=partition,
        current_offset=1_000,
        log_end_offset=None if lag is None else 1_000 + lag,
        log_start_offset=0,
        lag=lag,
        consumer_id=None,
        host=None,
        client_id=None,
    )


def snapshot_of(
    group_id: str,
    lags: Mapping[str, Sequence[int | None]],
    *,
    as_of: datetime | None = None,
    reset_policy: ResetPolicy = "latest",
) -> GroupSnapshot:
    """A snapshot listing ``lags[topic][p]`` for every p (None = lag unknown)."""
    return GroupSnapshot(
        group_id=group_id,
        as_of=as_of or datetime.now(UTC),
        state="Stable",
        protocol_type="classic",
        assignment_strategy="lagassign",
        members=(),
        partitions=tuple(
            partition_lag(topic, p, lag)
            for topic, values in sorted(lags.items())
            for p, lag in enumerate(values)
        ),
        reset_policy=reset_policy,
    )


class FakeLagView:
    """Snapshots in a dict; ``fetch_group`` answers from ``on_demand`` after ``fetch_delay_s``."""

    def __init__(self, snapshots: Mapping[str, GroupSnapshot] | None = None) -> None:
        self.cached: dict[str, GroupSnapshot] = dict(snapshots or {})
        self.consumer_index = ConsumerGroupIndex()
        self.on_demand: dict[str, GroupSnapshot] = {}
        self.fetch_delay_s = 0.0
        self.fetch_error: Exception | None = None
        self.fetches: list[tuple[str, float]] = []
        self.fetched_topics: list[frozenset[str]] = []
        self.fetches_abandoned = 0
        self.tracked: list[str] = []
        self.tracked_topics: dict[str, frozenset[str]] = {}
        self.started = 0
        self.stopped = 0
        self.snapshot_error: Exception | None = None
        self.first_snapshot_loaded = True
        self.kafka_up = True
        self.last_refresh_ok: datetime | None = datetime.now(UTC)
        self.last_refresh_error: str | None = None
        self.last_refresh_seconds: float | None = 0.01
        self.refresh_errors_total = 0
        self.tracked_groups_evicted_total = 0

    async def start(self) -> None:
        self.started += 1

    async def stop(self) -> None:
        self.stopped += 1

    def snapshot(self, group_id: str) -> GroupSnapshot | None:
        if self.snapshot_error is not None:
            raise self.snapshot_error
        return self.cached.get(group_id)

    def snapshots(self) -> Mapping[str, GroupSnapshot]:
        return dict(self.cached)

    def track(self, group_id: str, topics: Collection[str] = ()) -> None:
        self.tracked.append(group_id)
        self.tracked_topics[group_id] = frozenset(topics)

    async def fetch_group(
        self, group_id: str, budget_s: float, topics: Collection[str] = ()
    ) -> GroupSnapshot | None:
        self.fetches.append((group_id, budget_s))
        self.fetched_topics.append(frozenset(topics))
        if self.fetch_delay_s:
            try:
                await asyncio.sleep(self.fetch_delay_s)
            except asyncio.CancelledError:
                self.fetches_abandoned += 1
                raise
        if self.fetch_error is not None:
            raise self.fetch_error
        return self.on_demand.get(group_id)
