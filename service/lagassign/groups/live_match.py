"""Whether a group's live assignment is the service's last answer for it.

Members are matched by ``group.instance.id`` when they have one, so a static member
that restarted under a new member id still matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from lagassign.assign.answer_log import AnswerRecord
from lagassign.core.model import Assignment
from lagassign.groups.live_assignment import assigned_by, live_assignment
from lagassign.lagview.snapshot import GroupSnapshot

MatchStatus = Literal["matches", "differs", "pending", "unknown"]
TopicPartition = tuple[str, int]
#: Who holds a partition: ("instance", group.instance.id) for a static member, else
#: ("member", member id).
Holder = tuple[str, str]


@dataclass(frozen=True, slots=True)
class LiveMatch:
    """Whether the group's live assignment is the service's last answer.

    Members are matched by ``group.instance.id`` when they have one, else by member id.

    - ``matches``: every partition is where the last answer put it;
    - ``differs``: it is not (``differing_partitions`` of them): the consumers
      probably fell back to their own assignor, or rebalanced without asking;
    - ``pending``: the last answer is newer than the snapshot;
    - ``unknown``: no answer yet, or the live assignment is not known.
    """

    status: MatchStatus
    reason: str
    differing_partitions: int | None = None


def compare_live(
    snapshot: GroupSnapshot | None, live: Assignment, last: AnswerRecord | None
) -> LiveMatch:
    """Does the live assignment match the last answer? See :class:`LiveMatch`."""
    if last is None:
        return LiveMatch("unknown", "the service has not answered a rebalance of this group")
    if snapshot is None:
        return LiveMatch("unknown", "no lag snapshot of this group yet")
    if last.computed_at > snapshot.as_of:
        return LiveMatch("pending", "the last answer is newer than the snapshot")
    live_owner = owners(live, holders(snapshot))
    if not live_owner:
        state = snapshot.state or "unknown"
        return LiveMatch("unknown", f"the live assignment is not known (group state {state})")
    answer_owner = owners(last.assignment, last.instance_ids)
    differing = sum(
        1
        for tp in live_owner.keys() | answer_owner.keys()
        if live_owner.get(tp) != answer_owner.get(tp)
    )
    if differing == 0:
        return LiveMatch("matches", "every partition is where the last answer put it", 0)
    note = assigned_by(snapshot)
    why = (
        f"the leader fell back to the range assignor ({note.reason or 'no reason given'}), "
        "as the assignment's user data says"
        if note is not None and note.fallback
        else "the consumers probably fell back to their own assignor or rebalanced without asking"
    )
    return LiveMatch(
        "differs",
        f"{differing} partition(s) are not where the last answer put them: {why}",
        differing,
    )


def live_status(snapshot: GroupSnapshot, last: AnswerRecord | None) -> MatchStatus:
    """The status of :func:`compare_live` on the snapshot's own live assignment."""
    return compare_live(snapshot, live_assignment(snapshot), last).status


def holders(snapshot: GroupSnapshot) -> dict[str, str]:
    """Member id -> ``group.instance.id`` for the live static members."""
    return {m.member_id: m.group_instance_id for m in snapshot.members if m.group_instance_id}


def owners(
    assignment: Assignment, instance_ids: Mapping[str, str] | None = None
) -> dict[TopicPartition, Holder]:
    """Partition -> who holds it: the static member's instance id, else the member id."""
    ids = instance_ids or {}
    out: dict[TopicPartition, Holder] = {}
    for member_id, topics in assignment.items():
        instance = ids.get(member_id)
        holder = ("instance", instance) if instance else ("member", member_id)
        for topic, parts in topics.items():
            for p in parts:
                out[(topic, p)] = holder
    return out
