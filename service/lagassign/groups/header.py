"""The head of a group's report: how fresh its snapshot is, and the group as Kafka describes it.

- freshness: ``as_of``, ``age_seconds``, ``stale``, the last refresh error;
- header: state, protocol type, strategy (for a ``consumer``-protocol group, KIP-848,
  the broker's assignor, its epochs, and a note on how it opts in to lagassign's
  broker plugin when it does not use it yet), counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from lagassign.lagview.snapshot import GroupSnapshot

#: The broker plugin's assignor name (group.remote.assignor): a consumer-protocol group
#: is advised only on it.
PLUGIN_ASSIGNOR = "lagassign"


def consumer_protocol_note(assignor: str | None) -> str:
    """What a consumer-protocol group's header says about its assignor."""
    if assignor == PLUGIN_ASSIGNOR:
        return (
            "This group uses Kafka's new consumer group protocol (KIP-848) and the broker "
            "assigns it with lagassign's broker plugin (group.remote.assignor=lagassign)."
        )
    named = f"its '{assignor}' assignor" if assignor else "its own assignor"
    return (
        "This group uses Kafka's new consumer group protocol (KIP-848): the broker assigns "
        f"it with {named}, which balances partition counts, not lag. With lagassign's broker "
        "plugin on the brokers it opts in with the consumer setting "
        "group.remote.assignor=lagassign; 'balanced now' shows what that would give."
    )


@dataclass(frozen=True, slots=True)
class Freshness:
    """How old the group's snapshot is, and why it may not be current."""

    as_of: datetime | None
    age_seconds: float | None
    stale: bool
    last_refresh_error: str | None


@dataclass(frozen=True, slots=True)
class GroupHeader:
    """The group as ``DescribeGroups`` reports it, with the lag totals."""

    state: str | None
    protocol_type: str | None
    assignment_strategy: str | None
    members: int
    partitions: int
    total_lag: int
    unknown_partitions: int
    group_epoch: int | None = None
    assignment_epoch: int | None = None

    @property
    def protocol_note(self) -> str | None:
        if self.protocol_type != "consumer":
            return None
        return consumer_protocol_note(self.assignment_strategy)


def freshness(
    snapshot: GroupSnapshot | None,
    now: datetime,
    stale_after_s: float | None,
    refresh_error: str | None,
) -> Freshness:
    """Stale when the view says so, when the group's refresh failed, or when too old."""
    if snapshot is None:
        return Freshness(None, None, True, refresh_error)
    age = max(0.0, (now - snapshot.as_of).total_seconds())
    too_old = stale_after_s is not None and age > stale_after_s
    return Freshness(
        as_of=snapshot.as_of,
        age_seconds=round(age, 3),
        stale=snapshot.stale or snapshot.error is not None or too_old,
        last_refresh_error=snapshot.error or refresh_error,
    )


def group_header(snapshot: GroupSnapshot | None) -> GroupHeader:
    if snapshot is None:
        return GroupHeader(None, None, None, 0, 0, 0, 0)
    return GroupHeader(
        state=snapshot.state,
        protocol_type=snapshot.protocol_type,
        assignment_strategy=snapshot.assignment_strategy,
        members=len(snapshot.members),
        partitions=len(snapshot.partitions),
        total_lag=snapshot.total_lag(),
        unknown_partitions=snapshot.unknown_partitions,
        group_epoch=snapshot.group_epoch,
        assignment_epoch=snapshot.assignment_epoch,
    )
