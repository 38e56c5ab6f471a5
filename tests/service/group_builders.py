"""Plain builders for the ``/groups`` tests: snapshots with live members, answer records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

from lagassign.assign.answer_log import AnswerRecord
from lagassign.core.model import Assignment, AssignmentResult
from lagassign.lagview.snapshot import GroupSnapshot, MemberDescription, PartitionLag

AS_OF = datetime(2026, 11, 20, 22, 19, 3, 120_000, tzinfo=UTC)


def lag_row(
    topic: str,
    partition: int,
    lag: int | None,
    holder: str | None = None,
    *,
    committed: int | None = 0,
    end: int | None = None,
    start: int | None = 0,
) -> PartitionLag:
    """A partition row; the end offset defaults to ``committed + lag``."""
    if end is None and lag is not None and committed is not None:
        end = committed + lag
    return PartitionLag(
        topic=topic,
        partition=partition,
        current_offset=committed,
        log_end_offset=end,
        log_start_offset=start,
        lag=lag,
        consumer_id=holder,
        host="/127.0.0.1" if holder else None,
        client_id=f"client-{holder}" if holder else None,
    )


def member(member_id: str, assignment: Mapping[str, Sequence[int]]) -> MemberDescription:
    return MemberDescription(
        member_id=member_id,
        group_instance_id=None,
        client_id=f"client-{member_id}",
        host="/127.0.0.1",
        assignment={t: tuple(sorted(ps)) for t, ps in assignment.items()},
    )


def snapshot_of(
    group_id: str,
    assignment: Mapping[str, Mapping[str, Sequence[int]]],
    lags: Mapping[str, Sequence[int | None]],
    *,
    as_of: datetime = AS_OF,
    protocol_type: str = "classic",
    state: str = "Stable",
    error: str | None = None,
    stale: bool = False,
) -> GroupSnapshot:
    """A group whose members hold ``assignment`` (member -> topic -> partitions)."""
    holder = {(t, p): m for m, topics in assignment.items() for t, ps in topics.items() for p in ps}
    rows = tuple(
        lag_row(t, p, lag, holder.get((t, p)))
        for t, values in sorted(lags.items())
        for p, lag in enumerate(values)
    )
    return GroupSnapshot(
        group_id=group_id,
        as_of=as_of,
        state=state,
        protocol_type=protocol_type,
        assignment_strategy="range",
        members=tuple(member(m, topics) for m, topics in sorted(assignment.items())),
        partitions=rows,
        error=error,
        stale=stale,
    )


def answer_record(
    assignment: Assignment, *, at: datetime = AS_OF - timedelta(seconds=30)
) -> AnswerRecord:
    return AnswerRecord(
        computed_at=at,
        strategy="balanced",
        lag_source="kafka",
        imbalance=1.01,
        max_lag=1010,
        moved=2,
        compute_ms=0.42,
        members=len(assignment),
        partitions=sum(len(ps) for topics in assignment.values() for ps in topics.values()),
        result=AssignmentResult(assignment),
    )
