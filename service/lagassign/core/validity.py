"""The validity checker every strategy answer must pass.

An answer is valid when every member of the rebalance appears in it, every
partition of every subscribed topic is given exactly once, only to a member
subscribed to its topic, and no unknown partition or member appears. In the
cooperative protocol a partition listed in ``revoked`` (withheld this round)
counts as placed, and it must be owned by the member it is revoked from.
"""

from __future__ import annotations

from lagassign.core.errors import InvalidAssignment
from lagassign.core.model import AssignmentResult, Rebalance


def assignment_problems(rebalance: Rebalance, result: AssignmentResult) -> list[str]:
    """Every breach of the validity rules, as readable sentences (empty if valid)."""
    problems: list[str] = []
    topics_of = {m.member_id: set(m.topics) for m in rebalance.members}
    assignment = result.assignment
    for member_id in topics_of:
        if member_id not in assignment:
            problems.append(f"member {member_id!r} is missing from the assignment")
    placed: dict[tuple[str, int], str] = {}

    def place(member_id: str, topic: str, p: int, where: str) -> None:
        count = rebalance.partitions.get(topic)
        if count is None:
            problems.append(f"{where}: {member_id!r} gets unknown topic {topic!r}")
            return
        if not 0 <= p < count:
            problems.append(f"{where}: {member_id!r} gets unknown partition {topic}-{p}")
            return
        if (topic, p) in placed:
            problems.append(
                f"{where}: {topic}-{p} given to both {placed[(topic, p)]!r} and {member_id!r}"
            )
            return
        placed[(topic, p)] = member_id

    for member_id, topics in assignment.items():
        if member_id not in topics_of:
            problems.append(f"unknown member {member_id!r} in the assignment")
            continue
        for topic, parts in topics.items():
            if parts and topic not in topics_of[member_id]:
                problems.append(f"{member_id!r} gets {topic!r} without subscribing to it")
            if list(parts) != sorted(parts):
                problems.append(f"partitions of {topic!r} for {member_id!r} are not sorted")
            for p in parts:
                place(member_id, topic, p, "assignment")

    if result.revoked and rebalance.protocol != "cooperative":
        problems.append("revoked partitions are only allowed in the cooperative protocol")
    owned = {
        (m.member_id, t, p) for m in rebalance.members for t, ps in m.owned.items() for p in ps
    }
    for member_id, topics in result.revoked.items():
        for topic, parts in topics.items():
            for p in parts:
                if (member_id, topic, p) not in owned:
                    problems.append(f"{topic}-{p} revoked from {member_id!r}, which did not own it")
                place(member_id, topic, p, "revoked")

    for topic, count in rebalance.partitions.items():
        missing = [p for p in range(count) if (topic, p) not in placed]
        if missing:
            shown = ", ".join(str(p) for p in missing[:10])
            more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
            problems.append(f"{topic} partitions {shown}{more} are not assigned")
    return problems


def check_assignment(rebalance: Rebalance, result: AssignmentResult) -> None:
    """Raise :class:`InvalidAssignment` unless ``result`` is valid for ``rebalance``."""
    problems = assignment_problems(rebalance, result)
    if problems:
        raise InvalidAssignment(problems)
