"""Kafka's cooperative protocol: a partition that changes owner moves in two rounds.

In the first round the new assignment simply leaves the partition out: its
previous owner sees it missing and revokes it, and the next rebalance (which
the consumer triggers itself) gives it to its new owner. The answer lists such
partitions under ``revoked``, by the member that must give them up.

Example: c-1 owned t-0 and t-1; the eager answer gives t-1 to c-2. The
cooperative answer is c-1 = [t-0], c-2 = [] and revoked = {c-1: [t-1]}.
"""

from __future__ import annotations

from lagassign.core.model import Assignment, AssignmentResult, Rebalance
from lagassign.core.ownership import previous_owners


def withhold_moved(rebalance: Rebalance, assignment: Assignment) -> AssignmentResult:
    """Turn an eager assignment into a cooperative one for this rebalance."""
    owners = previous_owners(rebalance)
    kept: Assignment = {}
    revoked: Assignment = {}
    for member_id, topics in assignment.items():
        kept_topics: dict[str, list[int]] = {}
        for topic, parts in topics.items():
            stay = []
            for p in parts:
                owner = owners.get((topic, p))
                if owner is None or owner == member_id:
                    stay.append(p)
                else:
                    revoked.setdefault(owner, {}).setdefault(topic, []).append(p)
            kept_topics[topic] = stay
        kept[member_id] = kept_topics
    for topics in revoked.values():
        for parts in topics.values():
            parts.sort()
    return AssignmentResult(assignment=kept, revoked=revoked)
