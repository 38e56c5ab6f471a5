"""What every test member shows, whatever its client library: the :class:`Member` interface.

A member consumes with commits after every batch (at least once), remembers every
record it saw as ``(topic, partition, offset)``, and shows its shim's note on its
current assignment and its counters. The kinds: :mod:`tests.client.python_members`
(aiokafka, kafka-python), :mod:`tests.client.java_member` (a JVM of its own),
``client/go/mixedtest/go_member.py`` (franz-go); :mod:`tests.client.members` makes
and starts a group of them, :mod:`tests.client.group_waits` waits on it. Every kind
is made with a :class:`Membership`, what it joins, and a :class:`PollLoop`, how it
consumes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

Partition = tuple[str, int]
Record = tuple[str, int, int]

SESSION_TIMEOUT_MS = 30_000
HEARTBEAT_INTERVAL_MS = 1_000
STOP_TIMEOUT_S = 30.0
# How long a member's shim waits for the sidecar's answer, unless a test says otherwise.
SHIM_TIMEOUT_S = 1.5


@dataclass(frozen=True)
class Membership:
    """What a member joins, whatever its kind: ``group`` on the broker at ``bootstrap``,
    subscribed to ``topics``, its shim asking the sidecar at ``url`` within ``timeout_s``.
    The members of one group share it."""

    bootstrap: str
    group: str
    topics: Sequence[str]
    url: str
    timeout_s: float = SHIM_TIMEOUT_S


@dataclass(frozen=True)
class PollLoop:
    """How a member's poll loop runs, whatever its kind: ``commit`` after every batch;
    ``advise_every_s``: its shim's ``RebalanceAdvisor`` asked last in each round, asking
    the sidecar at most that often (None: no advisor); ``max_records``: a poll's most;
    ``work_s``: the application's work on each batch."""

    commit: bool = True
    advise_every_s: float | None = None
    max_records: int | None = None
    work_s: float = 0.0


#: The plain loop: every batch committed, no advisor.
COMMIT_EACH_BATCH = PollLoop()
#: Members that never commit: the group's lag stays what was produced.
NO_COMMIT = PollLoop(commit=False)


class Member(Protocol):
    name: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def partitions(self) -> set[Partition]: ...

    def note(self) -> dict[str, Any] | None: ...

    def consumed(self) -> set[Record]: ...

    def fallbacks(self) -> dict[str, int]: ...

    def decision_seconds(self) -> float | None: ...
