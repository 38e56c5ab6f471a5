"""The shim for kafka-python 3: ``partition_assignment_strategy=[KafkaPythonLagAssignor(...)]``.

kafka-python keeps an assignor given as an instance when it is an instance of
its ``AbstractPartitionAssignor``; this class is registered as a virtual
subclass of that ABC rather than inheriting from it, and implements its whole
interface, including ``supported_protocols``. Importing this module imports
kafka-python.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
import weakref
from collections.abc import Iterable
from typing import Any, Unpack

from lagassign_client.assignor import kafka_python_loop
from lagassign_client.assignor.assignment_digest import digest_of_assignments
from lagassign_client.assignor.dropped_assignment import DroppedAssignments
from lagassign_client.assignor.kafka_python_poll import (
    coordinator_of_this_join,
    coordinator_of_this_rebalance,
    join_dropped,
    poll_time_left,
)
from lagassign_client.assignor.shim import ShimAssignor, ShimOptions
from lagassign_client.errors import IncompleteMetadata
from lagassign_client.wire.group import Assignment, GroupView, Subscriber, partition_counts
from lagassign_client.wire.userdata import decode_subscription

# kafka-python ships no type information; its values are handled as Any here.
_abstract: Any = importlib.import_module("kafka.coordinator.assignors.abstract")
_range: Any = importlib.import_module("kafka.coordinator.assignors.range")
_consumer_protocol: Any = importlib.import_module("kafka.protocol.consumer.metadata")

log = logging.getLogger("lagassign_client")

# The share of the poll's timeout the sidecar call may take when the shim cannot
# read what is left of the poll: the JoinGroup answer may come late in it.
POLL_SHARE = 0.5
# What the sidecar call leaves of the poll for the range fallback and SyncGroup.
SYNC_RESERVE_S = 0.35
# Less than this for the sidecar: do not ask it, use range at once.
MIN_SIDECAR_S = 0.05
# Followers wait for the leader's assign() inside their own polls, at any point of
# them: the sidecar call takes at most this share of the consumer's poll timeout.
FOLLOWER_SHARE = 0.4
# A finished join kafka-python holds this long without applying it was dropped.
APPLY_GRACE_S = 2.0
WATCH_INTERVAL_S = 0.5


def _user_data(value: object) -> bytes | None:
    return bytes(value) if isinstance(value, bytes | bytearray | memoryview) else None


def _range_assignment(cluster: Any, members: list[Any]) -> Assignment:
    assignment: Assignment = {}
    for member_id, given in _range.RangePartitionAssignor.assign(cluster, members).items():
        topics: dict[str, list[int]] = {}
        for tp in given.partitions():
            topics.setdefault(tp.topic, []).append(tp.partition)
        assignment[member_id] = [(t, sorted(ps)) for t, ps in sorted(topics.items())]
    return assignment


class KafkaPythonLagAssignor(ShimAssignor):
    """kafka-python assignor that asks the lagassign sidecar, falling back to kafka-python's range.

    Same rules and settings as :class:`lagassign_client.LagAssignor`, plus
    ``poll_timeout_ms``: the shortest ``timeout_ms`` the application passes to
    ``poll()``. The sidecar call then takes at most half of it (and never more
    than ``timeout_s``), so that the rebalance fits in the poll that runs it::

        settings = {"group_id": "orders", "auto_offset_reset": "earliest"}
        consumer = KafkaConsumer(
            "orders",
            partition_assignment_strategy=[
                KafkaPythonLagAssignor.for_consumer(
                    "http://127.0.0.1:8321", settings, poll_timeout_ms=1000
                ),
            ],
            **settings,
        )

    kafka-python 3 drops a rebalance that ends after the ``poll()`` running it
    (see :mod:`lagassign_client.assignor.dropped_assignment`); the shim logs a WARNING
    when that happens and gives the same assignment again, at once, in the
    rebalance that follows.

    Eager only: the fallback, kafka-python's range assignor, is an eager
    assignor, so the shim cannot promise the cooperative protocol's rules.
    """

    version = 0

    def __init__(
        self, url: str, *, poll_timeout_ms: int | None = None, **options: Unpack[ShimOptions]
    ) -> None:
        super().__init__(url, **options)
        if poll_timeout_ms is not None and (
            isinstance(poll_timeout_ms, bool)
            or not isinstance(poll_timeout_ms, int)
            or poll_timeout_ms <= 0
        ):
            raise ValueError(
                f"poll_timeout_ms must be a positive number of milliseconds;"
                f" got {poll_timeout_ms!r}"
            )
        self.sidecar_budget_s = min(
            self.leader.sidecar.timeout_s,
            float("inf") if poll_timeout_ms is None else poll_timeout_ms * POLL_SHARE / 1000,
        )
        self.dropped = DroppedAssignments()
        self._closed = threading.Event()
        self._watchdog: threading.Thread | None = None

    @property
    def dropped_assignments(self) -> int:
        """Leader assignments kafka-python did not apply (the poll ended first)."""
        return self.dropped.count

    def supported_protocols(self) -> list[Any]:
        return [_abstract.RebalanceProtocol.EAGER]

    def metadata(self, topics: Iterable[str]) -> Any:
        """This member's subscription; called by kafka-python for every JoinGroup."""
        self.leadership.joining()
        self._watch(coordinator_of_this_join())
        rejoin = self.dropped.rejoining()
        if rejoin is not None and rejoin.superseded is not None:
            log.info(
                "lagassign: group %s: the rebalance this leader assigned was replaced by"
                " another before it completed (%s: a member joined or left meanwhile);"
                " it joins the new one",
                self.leader.group_id,
                rejoin.superseded,
            )
        elif rejoin is not None and rejoin.report:
            made = rejoin.made
            self._report_dropped(
                f"the assignment this leader made (by {made.decision.by}, decided in"
                f" {made.decision.seconds * 1000:.0f} ms)",
                "joins again",
            )
        return _consumer_protocol.ConsumerProtocolSubscription(
            self.version, sorted(topics), self.member.subscription_user_data()
        )

    def _report_dropped(self, what: str, then: str) -> None:
        log.error(
            "lagassign: group %s: kafka-python did not apply %s: the poll() running the"
            " rebalance ended before its SyncGroup did, and kafka-python drops such a"
            " rebalance. The member %s; a leader gives the same assignment again at once."
            " Poll with a timeout_ms well above the JoinGroup wait plus %.0f ms (or"
            " iterate the consumer).",
            self.leader.group_id,
            what,
            then,
            self.leader.sidecar.timeout_s * 1000,
        )

    def _watch(self, coordinator: Any) -> None:
        """Watch ``coordinator`` for joins it finished but dropped (one thread per consumer)."""
        if coordinator is None or self._watchdog is not None:
            return
        self._watchdog = threading.Thread(
            target=self._watch_joins,
            args=(weakref.ref(coordinator),),
            name="lagassign-join-watch",
            daemon=True,
        )
        self._watchdog.start()

    def _watch_joins(self, coordinator: weakref.ref[Any]) -> None:
        stuck_since: float | None = None
        while not self._closed.wait(WATCH_INTERVAL_S):
            target = coordinator()
            if target is None:
                return
            if not join_dropped(target):
                stuck_since = None
                continue
            now = time.monotonic()
            if stuck_since is None or now - stuck_since < APPLY_GRACE_S:
                stuck_since = stuck_since or now
                continue
            stuck_since = None
            made = self.dropped.stuck()
            what = (
                "the rebalance it joined"
                if made is None
                else f"the assignment this leader made (by {made.decision.by}, decided in"
                f" {made.decision.seconds * 1000:.0f} ms)"
            )
            self._report_dropped(what, "is asked to join again")
            # kafka-python's own flag for "join the group again at the next poll()".
            target.request_rejoin()

    def close(self) -> None:
        self._closed.set()
        super().close()

    def _sidecar_budget(self, coordinator: Any) -> float:
        """The sidecar's deadline for this rebalance: what fits in the polls waiting for it."""
        poll = poll_time_left(coordinator)
        if poll is None:
            return self.sidecar_budget_s
        budget = min(self.sidecar_budget_s, poll.left_s - SYNC_RESERVE_S)
        if poll.timeout_s is not None:
            budget = min(budget, poll.timeout_s * FOLLOWER_SHARE)
        if budget < self.sidecar_budget_s:
            log.info(
                "lagassign: group %s: %.0f ms left of the poll() running this rebalance"
                " (timeout_ms=%s); the sidecar gets %.0f ms of its %.0f ms",
                self.leader.group_id,
                poll.left_s * 1000,
                "?" if poll.timeout_s is None else f"{poll.timeout_s * 1000:.0f}",
                max(budget, 0.0) * 1000,
                self.leader.sidecar.timeout_s * 1000,
            )
        return budget if budget >= MIN_SIDECAR_S else 0.0

    def assign(self, cluster: Any, members: list[Any]) -> dict[str, Any]:
        """Called on the leader only: the sidecar's checked answer, or kafka-python's range.

        kafka-python calls it on its network thread, which it holds meanwhile
        (:mod:`lagassign_client.assignor.kafka_python_loop`).
        """
        started = time.monotonic()
        try:
            result = self._assign(cluster, members)
            self.leadership.leading(digest_of_assignments(result))
            return result
        finally:
            kafka_python_loop.held(time.monotonic() - started)

    def _assign(self, cluster: Any, members: list[Any]) -> dict[str, Any]:
        subscribers = [
            Subscriber(
                member_id=member.member_id,
                topics=tuple(member.metadata.topics),
                user_data=decode_subscription(_user_data(member.metadata.user_data)),
                group_instance_id=member.group_instance_id or None,
            )
            for member in members
        ]
        coordinator = coordinator_of_this_rebalance()
        view: GroupView | None
        try:
            counts = partition_counts(
                (t for s in subscribers for t in s.topics), cluster.partitions_for_topic
            )
            view = GroupView(self.leader.group_id, tuple(subscribers), counts)
        except IncompleteMetadata:
            view = None
        replayed = None if view is None else self.dropped.replay(view)
        if replayed is not None:
            assignment, decision = replayed.assignment, replayed.decision
            log.info(
                "lagassign: group %s: the same members as the dropped rebalance; the same"
                " assignment again (%s)",
                self.leader.group_id,
                decision.by,
            )
        else:
            answer, decision = self.leader.decide(
                subscribers,
                cluster.partitions_for_topic,
                timeout_s=None if view is None else self._sidecar_budget(coordinator),
            )
            assignment = answer if answer is not None else _range_assignment(cluster, members)
        if view is not None:
            # The join attempt this assign() runs in: its outcome tells a dropped
            # assignment from one a newer rebalance replaced (dropped_assignment.py).
            attempt = getattr(coordinator, "_join_task", None)
            self.dropped.assigned(view, assignment, decision, attempt)
        note = decision.user_data().encode()
        return {
            member_id: _consumer_protocol.ConsumerProtocolAssignment(self.version, pairs, note)
            for member_id, pairs in assignment.items()
        }

    def on_assignment(self, assignment: Any, generation: int) -> None:
        self.leadership.assigned()
        self.dropped.applied()
        self.member.on_assignment(
            ((tp.topic, tp.partition) for tp in assignment.partitions()),
            _user_data(assignment.user_data),
            generation if generation >= 0 else None,
        )


_abstract.AbstractPartitionAssignor.register(KafkaPythonLagAssignor)
