"""What ``GET /groups/{group_id}`` reports about one consumer group, as pure values.

From the group's cached :class:`~lagassign.lagview.snapshot.GroupSnapshot` and the
last answers the service computed for it (:class:`~lagassign.assign.answer_log.AnswerRecord`),
the report puts together:

- freshness and header (:mod:`lagassign.groups.header`);
- per partition, the rows of ``kafka-consumer-groups --describe`` (unknown = ``None``);
- per member of the live assignment, its lag and share, and the hot partitions
  (:mod:`lagassign.groups.live_assignment`);
- skew: the imbalance of the live assignment now and what the default strategy would
  give now (:mod:`lagassign.groups.strategy_now`);
- the last answers and whether the live assignment matches the last one
  (:mod:`lagassign.groups.live_match`);
- how the live assignment was made (``assigned_by``, from the assignment's user data)
  and how often each kind was seen (``assignments_seen``).

Nothing here does I/O: the HTTP route reads the snapshot and the answer log and
passes them in, with ``now``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from lagassign.assign.answer_log import AnswerRecord
from lagassign.groups.header import Freshness, GroupHeader, freshness, group_header
from lagassign.groups.live_assignment import (
    HotPartition,
    MemberLag,
    assigned_by,
    hot_partitions,
    live_assignment,
    live_imbalance,
    member_lags,
)
from lagassign.groups.live_match import LiveMatch, compare_live
from lagassign.groups.rates import NO_RATES, GroupRates
from lagassign.groups.strategy_now import StrategyNow, strategy_now
from lagassign.lagview.assignment_note import AssignmentNote
from lagassign.lagview.snapshot import GroupSnapshot, PartitionLag

#: (by, reason or "") -> how many live assignments of that kind the refreshes saw.
AssignmentsSeen = Mapping[tuple[str, str], int]


@dataclass(frozen=True, slots=True)
class Skew:
    """How uneven the live assignment is, and what the default strategy would do."""

    imbalance: float | None
    max_member_lag: int | None
    mean_member_lag: float | None
    default_strategy: str
    default_now: StrategyNow | None
    default_now_unavailable: str | None
    hot_partitions: tuple[HotPartition, ...]


@dataclass(frozen=True, slots=True)
class GroupReport:
    """Everything ``GET /groups/{group_id}`` shows about one group."""

    group_id: str
    freshness: Freshness
    header: GroupHeader
    partitions: tuple[PartitionLag, ...]
    members: tuple[MemberLag, ...]
    unassigned_partitions: int
    unassigned_lag: int
    skew: Skew
    last_answers: tuple[AnswerRecord, ...]
    live_vs_last_answer: LiveMatch
    #: Live rates and time lag (:mod:`lagassign.groups.rates`).
    rates: GroupRates = NO_RATES
    #: How the live assignment was made, from its user data (``None``: not known).
    assigned_by: AssignmentNote | None = None
    assignments_seen: AssignmentsSeen = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GroupSummary:
    """One line of ``GET /groups``: freshness and the headline numbers."""

    group_id: str
    freshness: Freshness
    header: GroupHeader
    imbalance: float | None
    last_answer: AnswerRecord | None
    live_vs_last_answer: LiveMatch
    assigned_by: AssignmentNote | None = None
    assignments_seen: AssignmentsSeen = field(default_factory=dict)


def group_report(
    group_id: str,
    snapshot: GroupSnapshot | None,
    answers: Sequence[AnswerRecord],
    *,
    default_strategy: str,
    now: datetime,
    stale_after_s: float | None = None,
    refresh_error: str | None = None,
    rates: GroupRates = NO_RATES,
    assignments_seen: AssignmentsSeen | None = None,
) -> GroupReport:
    """The full report of one group; ``answers`` newest first."""
    header = group_header(snapshot)
    live = live_assignment(snapshot) if snapshot else {}
    members = member_lags(snapshot, live, header.total_lag) if snapshot else ()
    held = {(t, p) for topics in live.values() for t, ps in topics.items() for p in ps}
    rows = snapshot.partitions if snapshot else ()
    unassigned = [p for p in rows if (p.topic, p.partition) not in held]
    default_now, unavailable = strategy_now(snapshot, live, default_strategy)
    return GroupReport(
        group_id=group_id,
        freshness=freshness(snapshot, now, stale_after_s, refresh_error),
        header=header,
        partitions=rows,
        members=members,
        unassigned_partitions=len(unassigned),
        unassigned_lag=sum(p.lag for p in unassigned if p.lag is not None),
        skew=Skew(
            imbalance=live_imbalance(members, header.total_lag),
            max_member_lag=max((m.lag for m in members), default=None),
            mean_member_lag=header.total_lag / len(members) if members else None,
            default_strategy=default_strategy,
            default_now=default_now,
            default_now_unavailable=unavailable,
            hot_partitions=hot_partitions(rows, header.total_lag),
        ),
        last_answers=tuple(answers),
        live_vs_last_answer=compare_live(snapshot, live, answers[0] if answers else None),
        rates=rates,
        assigned_by=assigned_by(snapshot),
        assignments_seen=dict(assignments_seen or {}),
    )


def group_summary(
    group_id: str,
    snapshot: GroupSnapshot | None,
    last_answer: AnswerRecord | None,
    *,
    now: datetime,
    stale_after_s: float | None = None,
    refresh_error: str | None = None,
    assignments_seen: AssignmentsSeen | None = None,
) -> GroupSummary:
    """The list view of one group: cheap (no strategy is run)."""
    header = group_header(snapshot)
    live = live_assignment(snapshot) if snapshot else {}
    members = member_lags(snapshot, live, header.total_lag) if snapshot else ()
    return GroupSummary(
        group_id=group_id,
        freshness=freshness(snapshot, now, stale_after_s, refresh_error),
        header=header,
        imbalance=live_imbalance(members, header.total_lag),
        last_answer=last_answer,
        live_vs_last_answer=compare_live(snapshot, live, last_answer),
        assigned_by=assigned_by(snapshot),
        assignments_seen=dict(assignments_seen or {}),
    )
