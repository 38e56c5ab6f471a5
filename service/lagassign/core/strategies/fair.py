"""Fair: the count-balancing strategy of KIP-49 (Fair Partition Assignment Strategy).

Rule. Start with the most constrained topics: topics with the fewest
subscribers first, ties by more partitions, then by name. Within a topic, in
partition order, each partition goes to the eligible (subscribed) member that
holds the fewest partitions so far, over all topics; ties go to the smallest
member id. Lag is not looked at. With identical subscriptions this deals
partitions like round robin; with different ones it keeps the counts close
where round robin and range leave members empty.

Example (the KIP's): topics T1, T3, T5 with two partitions, T2 and T4 with one;
C1 and C4 subscribe to all five, C2 and C3 to T1, T3, T5. Order: T2, T4 (two
subscribers), then T1, T3, T5 (four).

    T2-0 -> C1, T4-0 -> C4, T1-0 -> C2, T1-1 -> C3   (each the least loaded)
    T3-0 -> C1, T3-1 -> C2, T5-0 -> C3, T5-1 -> C4   (all at one, by id)

    C1: T2-0, T3-0   C2: T1-0, T3-1   C3: T1-1, T5-0   C4: T4-0, T5-1

Every member ends with two partitions; range would leave C3 and C4 with none.
"""

from __future__ import annotations

import heapq

from lagassign.core.model import Assignment, Rebalance


def assign(rebalance: Rebalance) -> Assignment:
    """The KIP-49 fair assignment of ``rebalance`` (every member listed, lists sorted)."""
    assignment: Assignment = {m.member_id: {} for m in rebalance.members}
    subscribers = rebalance.subscribers()
    load = {m.member_id: 0 for m in rebalance.members}
    topics = sorted(subscribers, key=lambda t: (len(subscribers[t]), -rebalance.partitions[t], t))
    for topic in topics:
        count = rebalance.partitions[topic]
        if count == 0 or not subscribers[topic]:
            continue
        heap = [(load[m], m) for m in subscribers[topic]]
        heapq.heapify(heap)
        for p in range(count):
            held, member_id = heap[0]
            assignment[member_id].setdefault(topic, []).append(p)
            heapq.heapreplace(heap, (held + 1, member_id))
        for held, member_id in heap:
            load[member_id] = held
    return assignment
