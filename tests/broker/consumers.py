"""Real consumers on the new consumer group protocol: confluent-kafka (librdkafka) and Java."""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from confluent_kafka import Consumer, KafkaException, TopicCollection
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic

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


JAVA_MEMBER = Path(__file__).resolve().parent / "JavaMember.java"
KAFKA_CLASSPATH = Path(__file__).resolve().parents[2] / "deploy" / "local-kafka" / "target"


class JavaMember:
    """A real Java KafkaConsumer (``JavaMember.java``) in a process of its own."""

    def __init__(self, bootstrap: str, group: str, topic: str, assignor: str, seconds: int) -> None:
        classpath = (KAFKA_CLASSPATH / "classpath.txt").read_text().strip()
        self.topic = topic
        self.member_id = ""
        self.partitions: set[tuple[str, int]] = set()
        self._lines: queue.Queue[str] = queue.Queue()
        self.process = subprocess.Popen(
            [
                "java",
                "-cp",
                classpath,
                str(JAVA_MEMBER),
                bootstrap,
                group,
                topic,
                assignor,
                str(seconds),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)

    def poll(self, timeout_s: float) -> None:
        """Take in what the consumer printed, waiting at most ``timeout_s`` for the first line."""
        with contextlib.suppress(queue.Empty):
            line = self._lines.get(timeout=timeout_s)
            while True:
                state = json.loads(line)
                self.member_id = state["member_id"]
                self.partitions = {(self.topic, p) for p in state["partitions"]}
                line = self._lines.get_nowait()

    def close(self) -> None:
        """Close stdin (the consumer leaves the group) and wait for the process; kill if stuck."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self._reader.join(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()


def mixed_owned(members: list[Consumer], java: list[JavaMember]) -> Owned:
    """Member id -> owned partitions, for confluent-kafka and Java members alike."""
    state = owned(members)
    for member in java:
        if member.member_id:
            state[member.member_id] = set(member.partitions)
    return state


def poll_mixed_until(
    members: list[Consumer], java: list[JavaMember], done: Callable[[Owned], bool], timeout_s: float
) -> Owned:
    deadline = time.monotonic() + timeout_s
    state: Owned = {}
    while time.monotonic() < deadline:
        for consumer in members:
            consumer.poll(0.05)
        for member in java:
            member.poll(0.01)
        state = mixed_owned(members, java)
        if done(state):
            return state
    return state
