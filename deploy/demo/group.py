"""The demo group ``demo-orders``: its topics, its skewed lag, and members that hold it.

Two topics where a few hot partitions hold most of the lag; every partition's lag is
set exactly (``log end - target`` committed) before any member joins, for the classic
group and, in ``make run``, for the consumer-protocol group beside it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition  # type: ignore[import-untyped]
from aiokafka.abc import ConsumerRebalanceListener  # type: ignore[import-untyped]
from aiokafka.coordinator.assignors.range import (  # type: ignore[import-untyped]
    RangePartitionAssignor,
)
from aiokafka.errors import KafkaError  # type: ignore[import-untyped]

from deploy.demo.cli import say
from harness import builders
from harness.broker import REPO
from harness.poll import eventually_async

DEMO_DIR = REPO / "var" / "demo"

GROUP = "demo-orders"
# Topic -> the lag each partition gets: a few hot partitions hold most of it.
TARGET_LAG: Mapping[str, Sequence[int]] = {
    "demo.orders": (8_000, 6_000, 400, 300, 200, 100),
    "demo.payments": (4_000, 200, 150, 100),
}
PARTITIONS = sum(len(lags) for lags in TARGET_LAG.values())
TOTAL_LAG = sum(sum(lags) for lags in TARGET_LAG.values())
CONSUMED = 500  # records per partition the group has already read
MEMBERS = 3
DEADLINE_S = 90.0


async def skewed_backlog(bootstrap: str, *groups: str) -> None:
    """The demo topics (kept as they are when an earlier run created them), records
    enough for every lag, and each of ``groups`` committed at its target lag."""
    partitions = {topic: len(lags) for topic, lags in TARGET_LAG.items()}
    await builders.create_topics(bootstrap, partitions, exist_ok=True, timeout_s=DEADLINE_S)
    await produce(
        bootstrap, {t: [lag + CONSUMED for lag in lags] for t, lags in TARGET_LAG.items()}
    )
    for group in groups:
        await commit_target_lag(bootstrap, group)


async def produce(bootstrap: str, amounts: Mapping[str, Sequence[int]]) -> None:
    """Write ``amounts[topic][p]`` small records to each partition."""
    await builders.produce_many(bootstrap, amounts)


async def commit_target_lag(bootstrap: str, group: str = GROUP) -> None:
    """Commit ``end - target`` on every partition, so each lag is exactly its target.

    The group must have no members; a member left over from an earlier run is
    waited out (its session times out) within the deadline.
    """
    tps = [TopicPartition(t, p) for t, lags in TARGET_LAG.items() for p in range(len(lags))]

    async def committed() -> bool:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False
        )
        await consumer.start()
        try:
            consumer.assign(tps)
            ends = await consumer.end_offsets(tps)
            offsets = {tp: max(0, ends[tp] - TARGET_LAG[tp.topic][tp.partition]) for tp in tps}
            await consumer.commit(offsets)
            return True
        except KafkaError:
            say("  (the group still has members from an earlier run; waiting for them to leave)")
            return False
        finally:
            await consumer.stop()

    await eventually_async(committed, DEADLINE_S, f"a commit for {group}", interval_s=3)


class HoldPaused(ConsumerRebalanceListener):  # type: ignore[misc]
    """Pause whatever the member is given: it holds its partitions and reads nothing."""

    def __init__(self, consumer: AIOKafkaConsumer) -> None:
        self.consumer = consumer

    async def on_partitions_revoked(self, revoked: Any) -> None:
        return None

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self.consumer.pause(*assigned)


@contextlib.asynccontextmanager
async def paused_range_members(bootstrap: str) -> AsyncIterator[None]:
    """Three members on the range assignor that poll (to stay in the group) but read nothing."""
    stop = asyncio.Event()
    consumers = [
        AIOKafkaConsumer(
            bootstrap_servers=bootstrap,
            group_id=GROUP,
            client_id=f"demo-consumer-{i}",
            enable_auto_commit=False,
            partition_assignment_strategy=(RangePartitionAssignor,),
        )
        for i in range(MEMBERS)
    ]

    async def poll(consumer: AIOKafkaConsumer) -> None:
        while not stop.is_set():
            await consumer.getmany(timeout_ms=500)

    for consumer in consumers:
        consumer.subscribe(list(TARGET_LAG), listener=HoldPaused(consumer))
        await consumer.start()
    polls = [asyncio.create_task(poll(c)) for c in consumers]
    try:
        yield
    finally:
        stop.set()
        await asyncio.gather(*polls, return_exceptions=True)
        for consumer in consumers:
            await consumer.stop()
