"""A group's live assignment as its snapshot shows it, and how its lag falls on the members.

- per member of the live assignment: partitions, lag sum, share of the group's lag;
- the imbalance of the live assignment (max member lag over the mean) and its hot
  partitions;
- how the live assignment was made (``assigned_by``: the sidecar's answer or the
  shims' range fallback, from the assignment's user data).

Worked example: two live members, ``c-1`` holding ``t0-0`` (lag 900) and ``c-2``
holding ``t0-1`` and ``t0-2`` (lags 50 and 50). The group's lag is 1000, the mean
member lag 500, so the live imbalance is 900 / 500 = 1.8, ``c-1`` carries 90 % of
the lag and ``t0-0`` is the hottest partition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lagassign.core.model import Assignment
from lagassign.lagview.assignment_note import AssignmentNote, live_note
from lagassign.lagview.snapshot import GroupSnapshot, PartitionLag

HOT_PARTITIONS = 5


@dataclass(frozen=True, slots=True)
class MemberLag:
    """One live member: what it holds now and how much of the group's lag that is.

    ``share`` is the member's lag over the group's lag, ``None`` when the group
    has no lag at all.
    """

    member_id: str
    group_instance_id: str | None
    client_id: str | None
    host: str | None
    assignment: Mapping[str, tuple[int, ...]]
    partitions: int
    lag: int
    unknown_partitions: int
    share: float | None
    #: The topics the member subscribes to, as the group's description reports them.
    subscribed_topics: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HotPartition:
    topic: str
    partition: int
    lag: int
    share: float | None
    consumer_id: str | None


def live_assignment(snapshot: GroupSnapshot) -> Assignment:
    """Member id -> topic -> sorted partitions, for every live member.

    From the members' decoded assignments, completed by the partition rows'
    ``consumer_id`` (the two agree when both are known).
    """
    held: dict[str, dict[str, set[int]]] = {m.member_id: {} for m in snapshot.members}
    for m in snapshot.members:
        for topic, parts in m.assignment.items():
            held[m.member_id].setdefault(topic, set()).update(parts)
    for p in snapshot.partitions:
        if p.consumer_id is not None and p.consumer_id in held:
            held[p.consumer_id].setdefault(p.topic, set()).add(p.partition)
    return {
        member_id: {t: sorted(ps) for t, ps in sorted(topics.items()) if ps}
        for member_id, topics in held.items()
    }


def member_lags(snapshot: GroupSnapshot, live: Assignment, total_lag: int) -> tuple[MemberLag, ...]:
    """Per live member, sorted by member id: partitions held, lag sum and share."""
    lag_of = {(p.topic, p.partition): p.lag for p in snapshot.partitions}
    out = []
    for m in sorted(snapshot.members, key=lambda m: m.member_id):
        topics = live.get(m.member_id, {})
        lags = [lag_of.get((t, p)) for t, ps in topics.items() for p in ps]
        lag = sum(v for v in lags if v is not None)
        out.append(
            MemberLag(
                member_id=m.member_id,
                group_instance_id=m.group_instance_id,
                client_id=m.client_id or None,
                host=m.host or None,
                assignment={t: tuple(ps) for t, ps in topics.items()},
                partitions=len(lags),
                lag=lag,
                unknown_partitions=sum(1 for v in lags if v is None),
                share=lag / total_lag if total_lag > 0 else None,
                subscribed_topics=m.subscribed_topics,
            )
        )
    return tuple(out)


def live_imbalance(members: Sequence[MemberLag], total_lag: int) -> float | None:
    """Max member lag over the mean (group lag / members); 1.0 when there is no lag."""
    if not members:
        return None
    if total_lag <= 0:
        return 1.0
    return max(m.lag for m in members) / (total_lag / len(members))


def hot_partitions(
    rows: Sequence[PartitionLag], total_lag: int, count: int = HOT_PARTITIONS
) -> tuple[HotPartition, ...]:
    """The partitions with the most lag (lag above 0), most first."""
    lagging = [p for p in rows if p.lag]
    lagging.sort(key=lambda p: (-(p.lag or 0), p.topic, p.partition))
    return tuple(
        HotPartition(
            topic=p.topic,
            partition=p.partition,
            lag=p.lag or 0,
            share=(p.lag or 0) / total_lag if total_lag > 0 else None,
            consumer_id=p.consumer_id,
        )
        for p in lagging[:count]
    )


def assigned_by(snapshot: GroupSnapshot | None) -> AssignmentNote | None:
    """How the live assignment was made, from the notes in its user data."""
    if snapshot is None:
        return None
    return live_note(m.note for m in snapshot.members)
