"""kafka-python's dropped leader assignment: noticed, said loudly, and given again at once.

kafka-python 3 drops a rebalance that ends after the ``poll()`` running it (see
:mod:`lagassign_client.kafka_python_poll`): the leader never applies its own
assignment.

The shim sees it from the outside: kafka-python's coordinator holds a finished join
it does not apply, or the leader's member is asked for its subscription again
without having been given an assignment. It then
logs an ERROR naming the cause, and the rebalance that follows gets the same
assignment back at once (no sidecar call) when the members, their topics and the
partitions are the same, so that it fits in the poll and the group settles.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from lagassign_client.group import Assignment, GroupView
from lagassign_client.leader import Decision

# A dropped assignment is given again only to the rebalance that follows it soon.
REPLAY_WINDOW_S = 120.0

GroupKey = tuple[tuple[tuple[str, tuple[str, ...]], ...], tuple[tuple[str, int], ...]]


def group_key(view: GroupView) -> GroupKey:
    """What an assignment depends on: each member's id and topics, each topic's partitions."""
    members = tuple(sorted((m, tuple(sorted(ts))) for m, ts in view.member_topics().items()))
    return members, tuple(sorted(view.partitions.items()))


@dataclass(frozen=True, slots=True)
class LeaderAssignment:
    serial: int
    key: GroupKey
    assignment: Assignment
    decision: Decision
    at: float


class DroppedAssignments:
    """The leader's last assignment until its member applies one; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._serial = 0
        self._pending: LeaderAssignment | None = None
        self._reported = False
        self._dropped: LeaderAssignment | None = None
        self._count = 0

    @property
    def count(self) -> int:
        """How many of this leader's assignments the client library did not apply."""
        with self._lock:
            return self._count

    def assigned(self, view: GroupView, assignment: Assignment, decision: Decision) -> int:
        """The leader made ``assignment`` and hands it to the client library; its serial."""
        with self._lock:
            self._serial += 1
            self._pending = LeaderAssignment(
                self._serial, group_key(view), assignment, decision, time.monotonic()
            )
            self._reported = False
            self._dropped = None
            return self._serial

    def applied(self) -> None:
        """This member was given an assignment: nothing was dropped."""
        with self._lock:
            self._pending = None
            self._dropped = None

    def stuck(self) -> LeaderAssignment | None:
        """The client library holds a join it will not apply: counted once; the assignment
        this member made as the leader, if it led that rebalance."""
        with self._lock:
            self._count += 1
            self._reported = self._pending is not None
            return self._pending

    def rejoining(self) -> LeaderAssignment | None:
        """This member joins again: the assignment it made and never got, when not yet
        reported by :meth:`stuck`."""
        with self._lock:
            dropped, self._pending = self._pending, None
            if dropped is None:
                return None
            self._dropped = dropped
            if self._reported:
                return None
            self._count += 1
            return dropped

    def replay(self, view: GroupView) -> LeaderAssignment | None:
        """The dropped assignment, once, when it still fits this rebalance."""
        with self._lock:
            dropped, self._dropped = self._dropped, None
        if dropped is None or time.monotonic() - dropped.at > REPLAY_WINDOW_S:
            return None
        return dropped if dropped.key == group_key(view) else None
