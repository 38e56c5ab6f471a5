"""Real confluent-kafka (librdkafka) consumers on the new consumer group protocol."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from confluent_kafka import Consumer, KafkaException, TopicCollection
from confluent_kafka.admin import AdminClient, NewTopic

Owned = dict[str, set[tuple[str, int]]]


def create_topic(bootstrap: str, topic: str, partitions: int) -> str:
    """Create ``topic`` and return its topic id as Kafka writes it (base64)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        future.result(timeout=60)
    deadline = time.monotonic() + 60
    while True:
        try:
            described = admin.describe_topics(TopicCollection([topic]))[topic].result(timeout=30)
            # librdkafka prints it in standard base64; Kafka's own form is URL-safe, unpadded.
            text = str(described.topic_id)
            return text.replace("+", "-").replace("/", "_").rstrip("=")
        except KafkaException:  # the metadata may lag the creation for a moment
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@contextmanager
def consumers(
    bootstrap: str, group: str, topic: str, count: int, assignor: str
) -> Iterator[list[Consumer]]:
    """``count`` consumers of ``topic`` in ``group`` with ``group.remote.assignor=assignor``."""
    members = []
    try:
        for _ in range(count):
            consumer = Consumer(
                {
                    "bootstrap.servers": bootstrap,
                    "group.id": group,
                    "group.protocol": "consumer",
                    "group.remote.assignor": assignor,
                    "auto.offset.reset": "earliest",
                    "enable.auto.commit": False,
                }
            )
            consumer.subscribe([topic])
            members.append(consumer)
        yield members
    finally:
        for consumer in members:
            consumer.close()


def owned(members: list[Consumer]) -> Owned:
    """Member id -> the partitions its consumer owns now."""
    return {c.memberid(): {(tp.topic, tp.partition) for tp in c.assignment()} for c in members}


def poll_until(members: list[Consumer], done: Callable[[Owned], bool], timeout_s: float) -> Owned:
    """Poll every consumer in turn until ``done(owned)`` or the timeout; the last state."""
    deadline = time.monotonic() + timeout_s
    state: Owned = {}
    while time.monotonic() < deadline:
        for consumer in members:
            consumer.poll(0.05)
        state = owned(members)
        if done(state):
            return state
    return state


def each_partition_once(state: Owned, topic: str, partitions: int) -> bool:
    given = [tp for tps in state.values() for tp in tps]
    return sorted(given) == [(topic, p) for p in range(partitions)] and all(state)
