"""kafka-python's dropped leader assignment: noticed, said loudly, and given again at once.

kafka-python 3 drops a rebalance that ends after the ``poll()`` running it (see
:mod:`lagassign_client.assignor.kafka_python_poll`): the leader never applies its own
assignment.

The shim sees it from the outside: kafka-python's coordinator holds a finished join
it does not apply, or the leader's member is asked for its subscription again
without having been given an assignment. It then
logs an ERROR naming the cause, and the rebalance that follows gets the same
assignment back at once (no sidecar call) when the members, their topics and the
partitions are the same, so that it fits in the poll and the group settles.

A leader asked for its subscription again without an assignment is not always a drop:
when another member joins while the leader's SyncGroup is on its way (four members
starting together), the broker answers that SyncGroup with REBALANCE_IN_PROGRESS and
kafka-python simply joins the new rebalance. That join attempt ended with an error, not
with an assignment, so nothing was lost: :meth:`DroppedAssignments.rejoining` is told
the attempt's outcome (:func:`attempt_failure`) and does not count or report it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from lagassign_client.assignor.leader import Decision
from lagassign_client.wire.group import Assignment, GroupView

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
    #: kafka-python's future of the join attempt (JoinGroup, assign(), SyncGroup) that
    #: carried this assignment, or None when it could not be read.
    attempt: Any = None


def attempt_failure(attempt: Any) -> str | None:
    """Why a finished join attempt failed (the name of its error), or None when it
    succeeded, is not finished, or cannot be read (another kafka-python version).

    kafka-python's join attempt is a ``kafka.future.Future``: ``is_done`` and
    ``exception`` once it ended.
    """
    if attempt is None or getattr(attempt, "is_done", False) is not True:
        return None
    error = getattr(attempt, "exception", None)
    return None if error is None else type(error).__name__


@dataclass(frozen=True, slots=True)
class Rejoin:
    """The assignment this leader made and never got, at its member's next join:
    ``superseded`` names the error that ended its join attempt (another rebalance
    replaced it: nothing lost), else it was dropped; ``report`` when not yet reported."""

    made: LeaderAssignment
    superseded: str | None
    report: bool


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

    def assigned(
        self,
        view: GroupView,
        assignment: Assignment,
        decision: Decision,
        attempt: Any = None,
    ) -> int:
        """The leader made ``assignment`` and hands it to the client library in the join
        attempt ``attempt`` (kafka-python's future, or None); its serial."""
        with self._lock:
            self._serial += 1
            self._pending = LeaderAssignment(
                self._serial, group_key(view), assignment, decision, time.monotonic(), attempt
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

    def rejoining(self) -> Rejoin | None:
        """This member joins again: the assignment it made and never got, if any.

        Counted as dropped (once, unless :meth:`stuck` did) only when its join attempt
        did not end in an error: an attempt that failed (REBALANCE_IN_PROGRESS from
        SyncGroup when another member joined meanwhile) was superseded by the rebalance
        this join is part of, and its assignment is neither counted nor given again.
        """
        with self._lock:
            made, self._pending = self._pending, None
            if made is None:
                return None
            superseded = attempt_failure(made.attempt)
            if superseded is not None:
                self._dropped = None
                return Rejoin(made, superseded, report=False)
            self._dropped = made
            if self._reported:
                return Rejoin(made, None, report=False)
            self._count += 1
            return Rejoin(made, None, report=True)

    def replay(self, view: GroupView) -> LeaderAssignment | None:
        """The dropped assignment, once, when it still fits this rebalance."""
        with self._lock:
            dropped, self._dropped = self._dropped, None
        if dropped is None or time.monotonic() - dropped.at > REPLAY_WINDOW_S:
            return None
        return dropped if dropped.key == group_key(view) else None
