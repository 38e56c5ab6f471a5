"""Lag-aware: the seed algorithm of the Lag-Aware Assignor KIP, exactly.

Rule (grantneale/kafka-lag-based-assignor). Each topic on its own: its
partitions are taken in order of lag, largest first (equal lags by partition
id), and each goes to the subscribed member that holds the fewest partitions of
that topic so far, then the least lag of that topic, then the smallest member
id (compared as Java compares strings).

Example (the KIP's): members C0 and C1 on t0, whose partitions have lags
100,000, 60,000 and 50,000.

    t0p0 (100,000) -> C0   both empty; C0 is the smaller id
    t0p1  (60,000) -> C1   C1 holds fewer partitions
    t0p2  (50,000) -> C1   equal counts; C1 has less lag (60,000 < 100,000)

    C0: t0 [0]    = 100,000        (range gives C0 t0 [0, 1] = 160,000)
    C1: t0 [1, 2] = 110,000        (range gives C1 t0 [2]    =  50,000)

The weakness: topics are balanced one at a time, so the member that takes the
heaviest partition of one topic takes the heaviest of every topic. With two
members and ten topics whose two partitions have lags 100 and 1, C0 ends with
1,000 and C1 with 10.
"""

from __future__ import annotations

from lagassign.core.model import Assignment, Rebalance
from lagassign.core.strategies.range import java_order


def assign(rebalance: Rebalance) -> Assignment:
    """The seed lag-aware assignment of ``rebalance`` (every member listed, lists sorted).

    Computed in rounds: fewest partitions first means every subscriber takes one
    partition per round, so a round hands the next partitions by lag to the
    subscribers ordered by their lag so far (a stable sort of the id order).
    """
    assignment: Assignment = {m.member_id: {} for m in rebalance.members}
    subscribers: dict[str, list[str]] = {t: [] for t in rebalance.partitions}
    for member in sorted(rebalance.members, key=lambda m: java_order(m.member_id)):
        for topic in member.topics:
            subscribers[topic].append(member.member_id)
    for topic, members in subscribers.items():
        count, lags = rebalance.partitions[topic], rebalance.lags[topic]
        by_lag = sorted(range(count), key=lags.__getitem__, reverse=True)  # stable: equal lags by p
        lag_of = dict.fromkeys(members, 0)
        for start in range(0, count, len(members)):
            order = sorted(members, key=lag_of.__getitem__)
            for member_id, p in zip(order, by_lag[start : start + len(members)], strict=False):
                assignment[member_id].setdefault(topic, []).append(p)
                lag_of[member_id] += lags[p]
        for member_id in members:
            assignment[member_id].get(topic, []).sort()
    return assignment
