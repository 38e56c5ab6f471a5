"""Real consumers on the new consumer group protocol: confluent-kafka (librdkafka) and Java."""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaException, Producer, TopicCollection
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic

from harness.poll import eventually
from tests.broker.java_programs import java_command

Owned = dict[str, set[tuple[str, int]]]


def sizes(state: Owned) -> list[int]:
    """How many partitions each member owns, smallest first."""
    return sorted(len(tps) for tps in state.values())


def reported_owned(body: dict[str, Any]) -> Owned:
    """Member id -> its partitions, as the sidecar's ``/groups/{group}`` report lists them."""
    return {
        m["member_id"]: {(t, p) for t, ps in m["assignment"].items() for p in ps}
        for m in body["members"]
    }


def produce_backlog(bootstrap: str, topic: str, backlog: Sequence[int]) -> None:
    """``backlog[p]`` records to each partition ``p`` of ``topic``."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
    for partition, count in enumerate(backlog):
        for i in range(count):
            producer.produce(topic, value=b"x" * 16, key=str(i).encode(), partition=partition)
        producer.poll(0)
    assert producer.flush(60) == 0


def create_topic(
    bootstrap: str, topic: str, partitions: int, replicas: list[list[int]] | None = None
) -> str:
    """Create ``topic`` and return its topic id as Kafka writes it (base64).

    ``replicas``: per partition, the node ids of its replicas (Kafka's replica assignment).
    """
    admin = AdminClient({"bootstrap.servers": bootstrap})
    new = (
        NewTopic(topic, partitions, 1)
        if replicas is None
        else NewTopic(topic, len(replicas), replica_assignment=replicas)
    )
    for future in admin.create_topics([new]).values():
        future.result(timeout=60)

    def topic_id() -> str | None:
        try:
            described = admin.describe_topics(TopicCollection([topic]))[topic].result(timeout=30)
        except KafkaException:  # the metadata may lag the creation for a moment
            return None
        # librdkafka prints it in standard base64; Kafka's own form is URL-safe, unpadded.
        return str(described.topic_id).replace("+", "-").replace("/", "_").rstrip("=")

    return eventually(topic_id, 60, f"the metadata of the new topic {topic}")


@contextmanager
def consumers(
    bootstrap: str, group: str, topic: str, count: int, assignor: str, rack: str | None = None
) -> Iterator[list[Consumer]]:
    """``count`` consumers of ``topic`` in ``group`` with ``group.remote.assignor=assignor``.

    ``rack``: their ``client.rack``.
    """
    members = []
    try:
        for _ in range(count):
            config: dict[str, str | bool] = {
                "bootstrap.servers": bootstrap,
                "group.id": group,
                "group.protocol": "consumer",
                "group.remote.assignor": assignor,
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
            }
            if rack is not None:
                config["client.rack"] = rack
            consumer = Consumer(config)
            consumer.subscribe([topic])
            members.append(consumer)
        yield members
    finally:
        for consumer in members:
            consumer.close()


def owned(members: Sequence[Consumer]) -> Owned:
    """Member id -> the partitions its consumer owns now."""
    return {c.memberid(): {(tp.topic, tp.partition) for tp in c.assignment()} for c in members}


class Ledger:
    """Records produced with known values, and which member consumed each one how often.

    Every value is ``b"<partition>:<n>"``; a record consumed from another partition
    than its value names, or one never produced, is counted as ``foreign``.
    """

    def __init__(self) -> None:
        self.produced: dict[bytes, int] = {}
        self.consumed: dict[bytes, list[str]] = {}
        self.foreign: list[tuple[str, int, bytes]] = []

    def produce(
        self, bootstrap: str, topic: str, partitions: int, per_partition: int
    ) -> set[bytes]:
        """Produce ``per_partition`` new records to each partition; their values."""
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
        batch: set[bytes] = set()
        for partition in range(partitions):
            start = sum(1 for p in self.produced.values() if p == partition)
            for n in range(start, start + per_partition):
                value = f"{partition}:{n}".encode()
                producer.produce(topic, value=value, partition=partition)
                self.produced[value] = partition
                batch.add(value)
            producer.poll(0)
        if producer.flush(60) != 0:
            raise RuntimeError(f"records to {topic} still unsent after 60 s")
        return batch

    def take(self, member_id: str, partition: int, value: bytes) -> None:
        if self.produced.get(value) != partition:
            self.foreign.append((member_id, partition, value))
            return
        self.consumed.setdefault(value, []).append(member_id)

    def missing(self, values: set[bytes] | None = None) -> set[bytes]:
        """The produced records (of ``values`` if given) no member consumed yet."""
        wanted = self.produced.keys() if values is None else values
        return {v for v in wanted if v not in self.consumed}


def each_partition_once(state: Owned, topic: str, partitions: int) -> bool:
    """Every partition of ``topic`` owned by exactly one member, and every member owns some."""
    given = [tp for tps in state.values() for tp in tps]
    return sorted(given) == [(topic, p) for p in range(partitions)] and all(state.values())


JAVA_MEMBER = Path(__file__).resolve().parent / "JavaMember.java"
KAFKA_CLASSPATH = Path(__file__).resolve().parents[2] / "deploy" / "local-kafka" / "target"


class JavaMember:
    """A real Java KafkaConsumer (``JavaMember.java``) in a process of its own."""

    def __init__(
        self,
        bootstrap: str,
        group: str,
        topic: str,
        assignor: str,
        seconds: int,
        rack: str | None = None,
    ) -> None:
        self.topic = topic
        self.member_id = ""
        self.partitions: set[tuple[str, int]] = set()
        self._lines: queue.Queue[str] = queue.Queue()
        self.process = subprocess.Popen(
            [
                *java_command(JAVA_MEMBER, (KAFKA_CLASSPATH / "classpath.txt").read_text().strip()),
                bootstrap,
                group,
                topic,
                assignor,
                str(seconds),
                *([rack] if rack is not None else []),
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
        """Take in what the consumer printed, waiting at most ``timeout_s`` for the first line.

        Its state lines are JSON objects; anything else on its stdout is the Kafka client's
        logging (a timestamped warning, seen on a loaded machine) and is passed over.
        """
        with contextlib.suppress(queue.Empty):
            line = self._lines.get(timeout=timeout_s)
            while True:
                if line.startswith("{"):
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


def mixed_owned(members: Sequence[Consumer], java: Sequence[JavaMember]) -> Owned:
    """Member id -> owned partitions, for confluent-kafka and Java members alike."""
    state = owned(members)
    for member in java:
        if member.member_id:
            state[member.member_id] = set(member.partitions)
    return state


def pump(
    members: Sequence[Consumer], java: Sequence[JavaMember] = (), ledger: Ledger | None = None
) -> Owned:
    """One round: poll every consumer once and take in what the Java members printed; who
    owns what now. With ``ledger``, every record a consumer returns is entered there under
    its member id."""
    for consumer in members:
        message = consumer.poll(0.05)
        if ledger is not None and message is not None and message.error() is None:
            value = message.value()
            partition = message.partition()
            assert isinstance(value, bytes)
            assert partition is not None
            ledger.take(consumer.memberid(), partition, value)
    for member in java:
        member.poll(0.01)
    return mixed_owned(members, java)


def poll_until(
    members: Sequence[Consumer],
    done: Callable[[Owned], bool],
    timeout_s: float,
    what: str = "the consumers' assignment",
    *,
    java: Sequence[JavaMember] = (),
    ledger: Ledger | None = None,
) -> Owned:
    """:func:`pump` round after round until ``done(owned)``; that state. After ``timeout_s``,
    :class:`TimeoutError` naming ``what`` and who owned what last."""
    last: Owned = {}

    def round_done() -> Owned | None:
        nonlocal last
        last = pump(members, java, ledger)
        return last if done(last) else None

    try:
        return eventually(round_done, timeout_s, what, interval_s=0)
    except TimeoutError as error:
        raise TimeoutError(f"{error}; who owned what last: {last}") from None
