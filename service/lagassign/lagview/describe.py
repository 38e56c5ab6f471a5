"""One group's lag, put together as ``kafka-consumer-groups --describe`` does.

The rows are every partition of every topic the group has committed offsets on
or is assigned, and of the topics its last rebalance named, with the member that
holds it in the live assignment, the group's committed offset, the topic's
offsets and the lag by the lag rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime

from lagassign.lagview.kafka.groups import CLASSIC, CONSUMER, GroupDescription, ListedGroup
from lagassign.lagview.kafka.offsets import PartitionOffsets, TopicOffsets
from lagassign.lagview.rules import Isolation, ResetPolicy, partition_lag
from lagassign.lagview.snapshot import GroupSnapshot, MemberDescription, PartitionLag, new_row

_UNKNOWN = PartitionOffsets(None, None, None)
_NOTHING: Mapping[int, int] = {}
_NOBODY: Mapping[int, MemberDescription] = {}


def describe_lag(
    description: GroupDescription,
    listed: ListedGroup | None,
    committed: Mapping[str, Mapping[int, int]],
    offsets: Mapping[str, TopicOffsets],
    reset: ResetPolicy,
    isolation: Isolation,
    as_of: datetime,
    named: Iterable[str] = (),
) -> GroupSnapshot:
    """The snapshot of one group from what the refresh read.

    ``named`` are topics the group reads though it may have neither commits nor
    assignments on them (the topics its rebalance named): every partition of
    theirs that ``offsets`` knows gets a row.

    ``listed`` (the group's ``ListGroups`` entry, when known) supplies the group
    type of KIP-848 and, for a ``consumer`` group (which ``DescribeGroups``
    reports as ``Dead``), its state.
    """
    owners: dict[str, dict[int, MemberDescription]] = {}
    topics: dict[str, set[int]] = {}
    for member in description.members:
        for topic in member.subscribed_topics:  # consumer-protocol members
            topics.setdefault(topic, set())
        for topic, partitions in member.assignment.items():
            topics.setdefault(topic, set()).update(partitions)
            held = owners.setdefault(topic, {})
            for p in partitions:
                held[p] = member
    for topic, topic_commits in committed.items():
        topics.setdefault(topic, set()).update(topic_commits)
    for topic in named:
        topics.setdefault(topic, set())

    read_committed = isolation == "read_committed"
    rows: list[PartitionLag] = []
    stale = False
    for topic in sorted(topics):
        known = offsets.get(topic)
        known_partitions = known.partitions if known is not None else {}
        topic_committed = committed.get(topic, _NOTHING)
        topic_owners = owners.get(topic, _NOBODY)
        for p in sorted(topics[topic].union(known_partitions)):
            topic_offsets = known_partitions.get(p, _UNKNOWN)
            current = topic_committed.get(p)
            start = topic_offsets.log_start
            end = topic_offsets.last_stable if read_committed else topic_offsets.high_watermark
            lag, out_of_range = partition_lag(current, start, end, reset)
            owner = topic_owners.get(p)
            consumer_id = host = client_id = None
            if owner is not None:
                consumer_id, host, client_id = owner.member_id, owner.host, owner.client_id
            stale = stale or topic_offsets.stale
            rows.append(
                new_row(
                    topic,
                    p,
                    current,
                    end,
                    start,
                    lag,
                    consumer_id,
                    host,
                    client_id,
                    out_of_range,
                    topic_offsets.stale,
                )
            )

    group_type = listed.group_type if listed is not None else None
    state = description.state
    if group_type == CONSUMER and listed is not None and description.group_epoch is None:
        state = listed.state  # described with DescribeGroups, which says Dead
    if group_type is None and description.group_epoch is not None:
        group_type = CONSUMER
    if group_type is None and description.state not in (None, "Dead"):
        group_type = CLASSIC
    return GroupSnapshot(
        group_id=description.group_id,
        as_of=as_of,
        state=state,
        protocol_type=group_type,
        assignment_strategy=description.assignment_strategy,
        members=description.members,
        partitions=tuple(rows),
        error=None,
        stale=stale,
        reset_policy=reset,
        isolation=isolation,
        group_epoch=description.group_epoch,
        assignment_epoch=description.assignment_epoch,
        topic_ids=description.topic_ids,
    )


def kept_stale(previous: GroupSnapshot, error: str) -> GroupSnapshot:
    """``previous`` kept after a failed read: every partition marked stale, ``error`` set."""
    partitions = tuple(p if p.stale else replace(p, stale=True) for p in previous.partitions)
    return replace(previous, partitions=partitions, error=error, stale=True)


def unread(
    group_id: str, error: str, as_of: datetime, reset: ResetPolicy, isolation: Isolation
) -> GroupSnapshot:
    """A group that has never been read: nothing known, ``error`` says why."""
    return GroupSnapshot(
        group_id=group_id,
        as_of=as_of,
        state=None,
        protocol_type=None,
        assignment_strategy=None,
        members=(),
        partitions=(),
        error=error,
        stale=True,
        reset_policy=reset,
        isolation=isolation,
    )
