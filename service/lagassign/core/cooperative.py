"""Kafka's cooperative protocol: a partition that changes owner moves in two rounds.

In the first round the new assignment simply leaves the partition out: its
previous owner sees it missing and revokes it, and the next rebalance (which
the consumer triggers itself) gives it to its new owner. The answer lists such
partitions under ``revoked``, by the member that must give them up.

Example: c-1 owned t-0 and t-1; the eager answer gives t-1 to c-2. The
cooperative answer is c-1 = [t-0], c-2 = [] and revoked = {c-1: [t-1]}.
"""

from __future__ import annotations

import numpy as np

from lagassign.core.flat import FlatAssignment
from lagassign.core.model import Assignment, AssignmentResult, Rebalance
from lagassign.core.ownership import flat_owner_numbers, previous_owners


def withhold_moved(rebalance: Rebalance, result: AssignmentResult) -> AssignmentResult:
    """Turn an eager answer into a cooperative one for this rebalance."""
    if result.flat is not None:
        return _withhold_flat(rebalance, result.flat)
    owners = previous_owners(rebalance)
    kept: Assignment = {}
    revoked: Assignment = {}
    for member_id, topics in result.assignment.items():
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


def _withhold_flat(rebalance: Rebalance, flat: FlatAssignment) -> AssignmentResult:
    """The same rule on the array: a moved partition's owner becomes -1 (nobody, this round).

    ``revoked`` lists the previous owners in member order, their topics in ``flat.topics``
    order (``flat``'s members and topics are the rebalance's, in canonical order).
    """
    previous = flat_owner_numbers(rebalance, flat.topics)
    moved = np.flatnonzero((previous >= 0) & (previous != flat.owner))
    if not len(moved):
        return AssignmentResult(flat=flat)
    owner = flat.owner.copy()
    owner[moved] = -1
    losers = previous[moved]
    order = np.argsort(losers, kind="stable")  # by member, then flat: by topic, then id
    topic_of = flat.topic_numbers()[moved[order]]
    starts = np.asarray(flat.starts[:-1], dtype=np.int64)
    revoked: Assignment = {}
    for m, t, x in zip(
        losers[order].tolist(), topic_of.tolist(), moved[order].tolist(), strict=True
    ):
        member = revoked.setdefault(flat.member_ids[m], {})
        member.setdefault(flat.topics[t], []).append(x - int(starts[t]))
    kept = FlatAssignment(flat.member_ids, flat.topics, flat.starts, owner)
    return AssignmentResult(flat=kept, revoked=revoked)
