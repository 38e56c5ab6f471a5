"""What every test member shows, whatever its client library: the :class:`Member` interface.

A member consumes with commits after every batch (at least once), remembers every
record it saw as ``(topic, partition, offset)``, and shows its shim's note on its
current assignment and its counters. The kinds: :mod:`tests.client.python_members`
(aiokafka, kafka-python), :mod:`tests.client.java_member` (a JVM of its own),
``client/go/mixedtest/go_member.py`` (franz-go); :mod:`tests.client.members` makes
and starts a group of them, :mod:`tests.client.group_waits` waits on it.
"""

from __future__ import annotations

from typing import Any, Protocol

Partition = tuple[str, int]
Record = tuple[str, int, int]

SESSION_TIMEOUT_MS = 30_000
HEARTBEAT_INTERVAL_MS = 1_000
STOP_TIMEOUT_S = 30.0


class Member(Protocol):
    name: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def partitions(self) -> set[Partition]: ...

    def note(self) -> dict[str, Any] | None: ...

    def consumed(self) -> set[Record]: ...

    def fallbacks(self) -> dict[str, int]: ...

    def decision_seconds(self) -> float | None: ...
