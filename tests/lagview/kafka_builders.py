"""Builders that put known facts into the real broker: topics, records, commits, members.

Every wait is bounded by a deadline; every client is closed before returning.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition  # type: ignore[import-untyped]
from aiokafka.admin import AIOKafkaAdminClient, NewTopic, RecordsToDelete  # type: ignore[import-untyped]

DEADLINE_S = 60.0


@asynccontextmanager
async def admin_client(bootstrap: str) -> AsyncIterator[Any]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        yield admin
    finally:
        await admin.close()


async def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    """Create ``topic`` and wait until every partition has a leader."""
    async with admin_client(bootstrap) as admin:
        await admin.create_topics([NewTopic(topic, partitions, 1)])
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            described = await admin.describe_topics([topic])
            parts = described[0]["partitions"] if described else []
            if len(parts) == partitions and all(p["leader"] >= 0 for p in parts):
                return
            await asyncio.sleep(0.1)
    raise TimeoutError(f"topic {topic} has no leaders after {DEADLINE_S} s")


async def produce(bootstrap: str, topic: str, counts: Sequence[int]) -> None:
    """Write ``counts[p]`` records to partition ``p`` of ``topic``."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    await producer.start()
    try:
        sent = [
            await producer.send(topic, f"{p}-{i}".encode(), partition=p)
            for p, count in enumerate(counts)
            for i in range(count)
        ]
        await producer.flush()
        await asyncio.gather(*sent)
    finally:
        await producer.stop()


async def commit(bootstrap: str, group: str, offsets: Mapping[tuple[str, int], int]) -> None:
    """Commit ``offsets`` for ``group`` as a consumer of the group (no subscription)."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False
    )
    await consumer.start()
    try:
        tps = {TopicPartition(t, p): o for (t, p), o in offsets.items()}
        consumer.assign(list(tps))
        await consumer.commit(tps)
    finally:
        await consumer.stop()


async def delete_records(bootstrap: str, topic: str, before: Mapping[int, int]) -> None:
    """Move the log start of ``topic``'s partitions to ``before[p]``."""
    async with admin_client(bootstrap) as admin:
        await admin.delete_records(
            {TopicPartition(topic, p): RecordsToDelete(o) for p, o in before.items()},
            timeout_ms=10_000,
        )


@asynccontextmanager
async def members(
    bootstrap: str, group: str, topics: Sequence[str], count: int, client_prefix: str
) -> AsyncIterator[list[AIOKafkaConsumer]]:
    """``count`` live members of ``group`` subscribed to ``topics``, once all are assigned."""
    consumers = [
        AIOKafkaConsumer(
            *topics,
            bootstrap_servers=bootstrap,
            group_id=group,
            client_id=f"{client_prefix}-{i}",
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            session_timeout_ms=30_000,
            heartbeat_interval_ms=1_000,
        )
        for i in range(count)
    ]
    try:
        for c in consumers:
            await c.start()
        await settled(consumers)
        yield consumers
    finally:
        for c in consumers:
            await c.stop()


async def settled(consumers: Sequence[AIOKafkaConsumer]) -> None:
    """Wait until every member holds partitions and together they hold the same set twice."""
    deadline = time.monotonic() + DEADLINE_S
    previous: set[TopicPartition] | None = None
    while time.monotonic() < deadline:
        held = [c.assignment() for c in consumers]
        union = set().union(*held)
        if all(held) and sum(len(h) for h in held) == len(union) and union == previous:
            return
        previous = union if all(held) else None
        await asyncio.sleep(0.5)
    raise TimeoutError(f"the group did not settle within {DEADLINE_S} s")
