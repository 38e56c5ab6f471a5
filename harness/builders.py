"""Builders that put known facts into a real broker: topics, records, commits, members.

Every wait is bounded by a deadline (:func:`harness.poll.eventually_async`); every
client is closed before returning.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition  # type: ignore[import-untyped]
from aiokafka.admin import AIOKafkaAdminClient, NewTopic, RecordsToDelete  # type: ignore[import-untyped]
from aiokafka.errors import TopicAlreadyExistsError  # type: ignore[import-untyped]

from harness.poll import eventually_async

DEADLINE_S = 60.0


@asynccontextmanager
async def admin_client(bootstrap: str, request_timeout_s: float = 40.0) -> AsyncIterator[Any]:
    admin = AIOKafkaAdminClient(
        bootstrap_servers=bootstrap, request_timeout_ms=int(request_timeout_s * 1000)
    )
    await admin.start()
    try:
        yield admin
    finally:
        await admin.close()


async def create_topics(
    bootstrap: str,
    partitions: Mapping[str, int],
    *,
    exist_ok: bool = False,
    timeout_s: float = DEADLINE_S,
) -> None:
    """Create each topic with ``partitions[topic]`` partitions; wait until all have leaders.

    With ``exist_ok`` a topic that already exists is kept as it is (a demo run again).
    """
    async with admin_client(bootstrap, request_timeout_s=timeout_s) as admin:
        new = dict(partitions)
        if exist_ok:
            existing = set(await admin.list_topics())
            new = {t: n for t, n in new.items() if t not in existing}
        if new:
            response = await admin.create_topics(
                [NewTopic(t, n, 1) for t, n in new.items()], timeout_ms=int(timeout_s * 1000)
            )
            for topic, code, *_ in response.topic_errors:
                if code != 0 and not (exist_ok and code == TopicAlreadyExistsError.errno):
                    raise RuntimeError(f"creating {topic} failed with Kafka error code {code}")

        async def led() -> bool:
            described = await admin.describe_topics(list(partitions))
            leaders = {
                d["topic"]: sum(1 for p in d["partitions"] if p["leader"] >= 0) for d in described
            }
            return all(leaders.get(t, 0) == n for t, n in partitions.items())

        await eventually_async(
            led, timeout_s, f"leaders for every partition of {len(partitions)} topics"
        )


async def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    """Create ``topic`` and wait until every partition has a leader."""
    await create_topics(bootstrap, {topic: partitions})


async def produce(bootstrap: str, topic: str, counts: Sequence[int]) -> None:
    """Write ``counts[p]`` records to partition ``p`` of ``topic`` (acknowledged by all)."""
    await produce_many(bootstrap, {topic: counts})


async def produce_many(bootstrap: str, counts: Mapping[str, Sequence[int]]) -> None:
    """Write ``counts[topic][p]`` records to partition ``p`` of each topic, one producer."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    await producer.start()
    try:
        for topic, per_partition in counts.items():
            sent = [
                await producer.send(topic, f"{p}-{i}".encode(), partition=p)
                for p, count in enumerate(per_partition)
                for i in range(count)
            ]
            await producer.flush()
            for future in sent:
                await future
    finally:
        await producer.stop()


async def commit(bootstrap: str, group: str, offsets: Mapping[tuple[str, int], int]) -> None:
    """Commit ``offsets`` for ``group`` as a consumer of the group (no subscription).

    The group must have no live members (Kafka refuses a commit from outside a
    generation otherwise).
    """
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


async def settled(consumers: Sequence[AIOKafkaConsumer], timeout_s: float = DEADLINE_S) -> None:
    """Wait until every member holds partitions and together they hold the same set twice."""
    previous: set[TopicPartition] | None = None

    def same_twice() -> bool:
        nonlocal previous
        held = [c.assignment() for c in consumers]
        union: set[TopicPartition] = set().union(*held)
        done = all(held) and sum(len(h) for h in held) == len(union) and union == previous
        previous = union if all(held) else None
        return done

    await eventually_async(same_twice, timeout_s, "the group settled", interval_s=0.5)
