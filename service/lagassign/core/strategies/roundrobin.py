"""Round robin: Kafka's ``RoundRobinAssignor``, exactly.

Rule. All partitions of all subscribed topics, topics in name order and
partitions in numeric order, are dealt one by one around a ring of all members
in Kafka's member order (static members first by ``group.instance.id``, then
dynamic members by member id; see :func:`range.kafka_member_order`). A member
not subscribed to a partition's topic is skipped, and the ring goes on from the
member after the one that took the partition. With identical subscriptions the
counts differ by at most one; with different ones the skipping can leave a
member far behind.

Example (Kafka's javadoc): C0 on t0; C1 on t0, t1; C2 on t0, t1, t2; t0, t1, t2
have 1, 2 and 3 partitions.

    t0p0 -> C0, t1p0 -> C1, t1p1 -> C2,
    t2p0, t2p1, t2p2 -> C2 (C0 and C1 skipped each time)

    C0: t0 [0]   C1: t1 [0]   C2: t1 [1], t2 [0, 1, 2]

Computed per topic rather than per step: the subscribers of a topic, in ring
order, take its partitions cyclically, starting at the first subscriber at or
after the ring's position, so skipping costs nothing.
"""

from __future__ import annotations

from bisect import bisect_left

from lagassign.core.model import Assignment, Rebalance
from lagassign.core.strategies.range import java_order, kafka_member_order


def assign(rebalance: Rebalance) -> Assignment:
    """Kafka's round-robin assignment of ``rebalance`` (every member listed, lists sorted)."""
    ring = kafka_member_order(rebalance.members)
    assignment: Assignment = {m.member_id: {} for m in rebalance.members}
    # topic -> ring positions of its subscribers, ascending
    positions: dict[str, list[int]] = {t: [] for t in rebalance.partitions}
    for position, member in enumerate(ring):
        for topic in member.topics:
            positions[topic].append(position)

    cursor = 0  # ring position of the next member to consider
    for topic in sorted(rebalance.partitions, key=java_order):
        count = rebalance.partitions[topic]
        subscribed = positions[topic]
        if count == 0 or not subscribed:
            continue
        first = bisect_left(subscribed, cursor) % len(subscribed)
        width = len(subscribed)
        for offset in range(min(width, count)):
            member_id = ring[subscribed[(first + offset) % width]].member_id
            assignment[member_id][topic] = list(range(offset, count, width))
        cursor = subscribed[(first + count - 1) % width] + 1
    return assignment
