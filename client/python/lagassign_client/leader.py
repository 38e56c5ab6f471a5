"""What the group leader does in a rebalance: ask the sidecar, check the answer, or fall back.

:meth:`GroupLeader.decide` never raises a :class:`~lagassign_client.errors.FallbackReason`:
it logs one WARNING with the reason, counts it, and returns no assignment, so the
caller uses the client library's own range assignor.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lagassign_client.answer import read_answer
from lagassign_client.errors import FallbackReason
from lagassign_client.group import Assignment, GroupView, Subscriber, partition_counts
from lagassign_client.sidecar import Sidecar
from lagassign_client.userdata import AssignedBy, AssignmentUserData

log = logging.getLogger("lagassign_client")


@dataclass(frozen=True, slots=True)
class Decision:
    """How one rebalance was assigned, and how long the leader took to decide."""

    by: AssignedBy
    seconds: float
    strategy: str | None = None
    reason: str | None = None
    message: str | None = None

    def user_data(self) -> AssignmentUserData:
        return AssignmentUserData(by=self.by, strategy=self.strategy, reason=self.reason)


class GroupLeader:
    """The leader's side of the shim for one consumer, whatever its client library.

    The counters may be read from any thread (kafka-python rebalances on its own).
    """

    def __init__(self, sidecar: Sidecar, group_id: str, strategy: str | None) -> None:
        self.sidecar = sidecar
        self.group_id = group_id
        self.strategy = strategy
        self._lock = threading.Lock()
        self._fallbacks: Counter[str] = Counter()
        self._answers = 0
        self._last_decision: Decision | None = None

    @property
    def fallbacks(self) -> dict[str, int]:
        """Rebalances led on the range fallback, by reason (a copy)."""
        with self._lock:
            return dict(self._fallbacks)

    @property
    def answers(self) -> int:
        with self._lock:
            return self._answers

    @property
    def last_decision(self) -> Decision | None:
        with self._lock:
            return self._last_decision

    def decide(
        self,
        subscribers: Iterable[Subscriber],
        partitions_for_topic: Callable[[str], Iterable[int] | None],
    ) -> tuple[Assignment | None, Decision]:
        """The sidecar's checked answer, or ``None`` when the caller must fall back."""
        started = time.monotonic()
        deadline = started + self.sidecar.timeout_s
        members = tuple(subscribers)
        try:
            counts = partition_counts((t for s in members for t in s.topics), partitions_for_topic)
            view = GroupView(group_id=self.group_id, subscribers=members, partitions=counts)
            body = json.dumps(view.request_body(self.strategy), separators=(",", ":")).encode()
            answer = read_answer(self.sidecar.post_assign(body, deadline), view)
        except FallbackReason as exc:
            decision = Decision(
                by="range",
                seconds=time.monotonic() - started,
                reason=exc.reason,
                message=str(exc),
            )
            with self._lock:
                self._fallbacks[exc.reason] += 1
                self._last_decision = decision
            log.warning(
                "lagassign: group %s falls back to the range assignor (%s): %s",
                self.group_id,
                exc.reason,
                exc,
            )
            return None, decision
        decision = Decision(
            by="sidecar", seconds=time.monotonic() - started, strategy=answer.strategy
        )
        with self._lock:
            self._answers += 1
            self._last_decision = decision
        return answer.assignment, decision
