"""kafka-python's dropped leader assignment told apart from a superseded rebalance, with
kafka-python's own join-attempt future (``kafka.future.Future``) and errors."""

from __future__ import annotations

from kafka.errors import RebalanceInProgressError  # type: ignore[import-untyped]
from kafka.future import Future  # type: ignore[import-untyped]

from lagassign_client.assignor.dropped_assignment import DroppedAssignments, attempt_failure
from lagassign_client.assignor.leader import Decision
from lagassign_client.wire.group import Assignment, GroupView, Subscriber
from lagassign_client.wire.userdata import SubscriptionUserData

VIEW = GroupView(
    "orders",
    (Subscriber("c-1", ("t0",), SubscriptionUserData()),),
    {"t0": 2},
)
ASSIGNMENT: Assignment = {"c-1": [("t0", [0, 1])]}
DECISION = Decision(by="sidecar", seconds=0.01, strategy="balanced")


def test_a_sync_group_refused_by_a_new_rebalance_is_superseded_not_dropped() -> None:
    attempt = Future()
    dropped = DroppedAssignments()
    dropped.assigned(VIEW, ASSIGNMENT, DECISION, attempt)
    attempt.failure(RebalanceInProgressError("orders"))  # SyncGroup: another member joined
    rejoin = dropped.rejoining()
    assert rejoin is not None
    assert rejoin.superseded == "RebalanceInProgressError"
    assert not rejoin.report
    assert dropped.count == 0
    assert dropped.replay(VIEW) is None  # nothing to give again: the new rebalance decides


def test_a_join_that_succeeded_but_was_never_applied_is_dropped_once() -> None:
    attempt = Future()
    dropped = DroppedAssignments()
    dropped.assigned(VIEW, ASSIGNMENT, DECISION, attempt)
    attempt.success(b"assignment")  # finished after the poll gave up on it
    rejoin = dropped.rejoining()
    assert rejoin is not None
    assert rejoin.superseded is None
    assert rejoin.report
    assert dropped.count == 1
    replayed = dropped.replay(VIEW)
    assert replayed is not None
    assert replayed.assignment == ASSIGNMENT


def test_an_unreadable_attempt_keeps_the_old_rule() -> None:
    dropped = DroppedAssignments()
    dropped.assigned(VIEW, ASSIGNMENT, DECISION, None)
    rejoin = dropped.rejoining()
    assert rejoin is not None
    assert rejoin.report
    assert dropped.count == 1


def test_an_applied_assignment_is_nothing_at_the_next_join() -> None:
    attempt = Future()
    dropped = DroppedAssignments()
    dropped.assigned(VIEW, ASSIGNMENT, DECISION, attempt)
    attempt.success(b"assignment")
    dropped.applied()
    assert dropped.rejoining() is None
    assert dropped.count == 0


def test_attempt_failure_reads_only_finished_attempts() -> None:
    running = Future()
    assert attempt_failure(running) is None
    assert attempt_failure(None) is None
    assert attempt_failure(object()) is None
