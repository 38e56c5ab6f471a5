"""A confluent-kafka member of a consumer-protocol group (KIP-848) that reads nothing.

It pauses whatever the broker assigns it and is polled in a thread of its own, so the
group exists, holds its lag and can be described while nothing is consumed. Used by the
catch-up benchmark (a scout that forms the group before the measured members join) and
by the demo's consumer-protocol group.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from confluent_kafka import Consumer, TopicPartition

POLL_S = 0.2
JOIN_S = 10.0


class PausedMember:
    """One consumer with ``group.protocol=consumer`` and the broker's ``assignor``."""

    def __init__(
        self, bootstrap: str, group: str, client_id: str, topics: Sequence[str], assignor: str
    ) -> None:
        self.consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": group,
                "client.id": client_id,
                "group.protocol": "consumer",
                "group.remote.assignor": assignor,
                "enable.auto.commit": False,
            }
        )
        self.consumer.subscribe(list(topics), on_assign=self._hold)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _hold(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        consumer.pause(partitions)

    def _poll(self) -> None:
        while not self._stop.is_set():
            self.consumer.poll(POLL_S)

    def close(self) -> None:
        """Leave the group (its partitions go to the others) and end the thread; once."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join(timeout=JOIN_S)
        self.consumer.close()
