"""One kafka-python consumer with the shim, in a process of its own, for the group tests.

``python -m tests.client.kafka_python_process BOOTSTRAP GROUP TOPICS URL POLL_MS NAME``

kafka-python 3.0.12 can hang a leader after SyncGroup when two of its consumers
share a process, so each member of a kafka-python group runs here. It polls with
``poll(timeout_ms=POLL_MS)`` and after each poll prints one JSON line: the
partitions it owns (as its rebalance listener was told), its shim's fallbacks and
dropped assignments. A line ``subscribe T1,T2`` on stdin changes its subscription
(between two polls); it stops when stdin says ``stop`` or closes.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from typing import Any

import kafka  # type: ignore[import-untyped]

from lagassign_client.kafka_python import KafkaPythonLagAssignor

SESSION_TIMEOUT_MS = 10_000
HEARTBEAT_INTERVAL_MS = 1_000


class Owned:
    def __init__(self) -> None:
        self.partitions: list[tuple[str, int]] = []

    def on_partitions_revoked(self, revoked: Any) -> None:
        self.partitions = []

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.partitions = sorted((tp.topic, tp.partition) for tp in assigned)


kafka.ConsumerRebalanceListener.register(Owned)


def main() -> None:
    bootstrap, group, topics, url, poll_ms, name = sys.argv[1:7]
    stopping = threading.Event()
    subscriptions: list[list[str]] = []

    def read_commands() -> None:
        for line in sys.stdin:
            command, _, argument = line.strip().partition(" ")
            if command == "stop":
                break
            if command == "subscribe":
                subscriptions.append(argument.split(","))
        stopping.set()

    threading.Thread(target=read_commands, daemon=True).start()
    # The shim's decisions and kafka-python's group events, for the test's log files.
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    logging.getLogger("lagassign_client").setLevel(logging.INFO)
    logging.getLogger("kafka.coordinator").setLevel(logging.INFO)
    settings = {
        "bootstrap_servers": bootstrap,
        "group_id": group,
        "client_id": name,
        "auto_offset_reset": "earliest",
        "enable_auto_commit": False,
        "session_timeout_ms": SESSION_TIMEOUT_MS,
        "heartbeat_interval_ms": HEARTBEAT_INTERVAL_MS,
    }
    assignor = KafkaPythonLagAssignor(url=url, group_id=group)
    consumer = kafka.KafkaConsumer(partition_assignment_strategy=[assignor], **settings)
    owned = Owned()
    consumer.subscribe(topics.split(","), listener=owned)
    try:
        while not stopping.is_set():
            if subscriptions:
                consumer.subscribe(subscriptions.pop(0), listener=owned)
            consumer.poll(timeout_ms=int(poll_ms))
            report = {
                "partitions": owned.partitions,
                "fallbacks": assignor.fallbacks,
                # Older shims did not count them.
                "dropped": getattr(assignor, "dropped_assignments", None),
                "answers": assignor.answers,
            }
            print(json.dumps(report), flush=True)
    finally:
        consumer.close()
        assignor.close()


if __name__ == "__main__":
    main()
