"""Sticky: balanced by partition count; a partition stays put unless balance needs it elsewhere.

Rule. Partition counts differ by at most one where subscriptions allow; owners
are those of :func:`ownership.previous_owners`. Lag is ignored.

- Identical subscriptions: Kafka's constrained sticky algorithm, linear. With P
  partitions and N members the quota is P // N, and P % N members may hold one
  more. Each member, by member id, keeps its owned partitions (lowest partition
  ids first) up to its quota; the rest are dealt in topic and partition order,
  round robin, to members below P // N, then one each to those that may hold one more.
- Otherwise: owned partitions stay; the others go topic by topic (fewest
  subscribers first) to the subscriber with the fewest partitions. Then
  partitions move to a member holding at least two fewer: within a topic, then
  along shortest chains (A holds a partition of a topic B subscribes to, B one
  that C subscribes to, ...), until none is left: the best balance there is.

Example: C0 owned t0 [0, 1, 2] and C1 owned t0 [3, 4, 5]; C2 joins. The quota
is two each: C0 keeps [0, 1], C1 keeps [3, 4], C2 gets [2, 5]. Two partitions
move, the fewest that balance allows.
"""

from __future__ import annotations

import heapq
from collections import deque

from lagassign.core.model import Assignment, Rebalance
from lagassign.core.ownership import TopicPartition, previous_owners
from lagassign.core.strategies.range import java_order

Held = dict[str, dict[str, list[int]]]  # topic -> member id -> partitions
Chains = dict[str, tuple[str, str] | None]  # member -> (topic, next member); None at the end


def assign(rebalance: Rebalance) -> Assignment:
    """The sticky assignment of ``rebalance`` (every member listed, lists sorted)."""
    owners = previous_owners(rebalance)
    identical = len({m.topics for m in rebalance.members}) == 1
    held = (_constrained if identical else _general)(rebalance, owners)
    assignment: Assignment = {m.member_id: {} for m in rebalance.members}
    for topic, by_member in held.items():
        for member_id, parts in ((m, ps) for m, ps in by_member.items() if ps):
            parts.sort()
            assignment[member_id][topic] = parts
    return assignment


def _constrained(rebalance: Rebalance, owners: dict[TopicPartition, str]) -> Held:
    members = sorted((m.member_id for m in rebalance.members), key=java_order)
    min_quota, extra = divmod(rebalance.partition_count(), len(members))
    max_quota = min_quota + (1 if extra else 0)
    topics = sorted(rebalance.partitions, key=java_order)
    rank, width = {t: i for i, t in enumerate(topics)}, len(topics)
    owned: dict[str, list[int]] = {m: [] for m in members}
    for (topic, p), owner in owners.items():  # by partition, then topic: p * width + rank
        owned[owner].append(p * width + rank[topic])
    held: Held = {t: {} for t in rebalance.partitions}
    count: dict[str, int] = {}
    placed = {t: bytearray(n) for t, n in rebalance.partitions.items()}
    under: list[str] = []  # below min_quota
    exact: list[str] = []  # at min_quota, may still take one more
    over = 0  # members given max_quota
    for member_id in members:
        mine = sorted(owned[member_id])
        if len(mine) >= max_quota and over < extra:
            keep, over = mine[:max_quota], over + 1
            if over == extra:
                exact.clear()
        else:
            keep = mine[:min_quota]
            if len(mine) < min_quota:
                under.append(member_id)
            elif over < extra:
                exact.append(member_id)
        for p, i in (divmod(code, width) for code in keep):
            held[topics[i]].setdefault(member_id, []).append(p)
            placed[topics[i]][p] = 1
        count[member_id] = len(keep)

    below, at_min = deque(under), deque(exact)  # both already in Java order
    for topic in topics:
        for p in (p for p, done in enumerate(placed[topic]) if not done):
            from_below = bool(below)
            member_id = below.popleft() if from_below else at_min.popleft()
            held[topic].setdefault(member_id, []).append(p)
            count[member_id] += 1
            if from_below:
                (at_min if count[member_id] == min_quota else below).append(member_id)
    return held


def _general(rebalance: Rebalance, owners: dict[TopicPartition, str]) -> Held:
    subscribers = rebalance.subscribers()
    topics_of = {m.member_id: m.topics for m in rebalance.members}
    held: Held = {t: {} for t in rebalance.partitions}
    count = dict.fromkeys(topics_of, 0)
    for (topic, p), owner in owners.items():
        held[topic].setdefault(owner, []).append(p)
        count[owner] += 1
    for topic in sorted(subscribers, key=lambda t: (len(subscribers[t]), t)):
        heap = sorted((count[m], m) for m in subscribers[topic])
        for p in (p for p in range(rebalance.partitions[topic]) if (topic, p) not in owners):
            held_now, member_id = heap[0]
            held[topic].setdefault(member_id, []).append(p)
            count[member_id] += 1
            heapq.heapreplace(heap, (held_now + 1, member_id))

    while _direct_moves(held, count, subscribers) or _chain_moves(held, count, topics_of):
        pass
    return held


def _direct_moves(held: Held, count: dict[str, int], subscribers: dict[str, list[str]]) -> bool:
    """In each topic, pair its emptiest subscribers with its fullest holders; True if any moved."""
    moved = False
    for topic, members in subscribers.items():
        holders = held[topic]
        low = sorted(members, key=count.__getitem__)
        high = sorted((m for m, ps in holders.items() if ps), key=lambda m: -count[m])
        for receiver, giver in zip(low, high, strict=False):
            if count[giver] < count[receiver] + 2:
                break
            holders.setdefault(receiver, []).append(holders[giver].pop())
            count[giver], count[receiver] = count[giver] - 1, count[receiver] + 1
            moved = True
    return moved


def _chain_moves(held: Held, count: dict[str, int], topics_of: dict[str, tuple[str, ...]]) -> bool:
    """Move partitions along shortest chains to the emptiest members; True if any moved."""
    levels = sorted(set(count.values()))
    for level in (c for c in levels if c + 2 <= levels[-1]):
        queue = [m for m, c in count.items() if c <= level]
        toward: Chains = dict.fromkeys(queue)  # breadth first, backwards from the emptiest
        seen: set[str] = set()
        for receiver in queue:  # the queue grows while it is read
            for topic in (t for t in topics_of[receiver] if t not in seen):
                seen.add(topic)
                for giver in (g for g, ps in held[topic].items() if ps and g not in toward):
                    toward[giver] = (topic, receiver)
                    queue.append(giver)
        moved = False
        for start in sorted(toward, key=lambda m: (-count[m], m)):
            while count[start] >= level + 2 and _shift(held, count, toward, start):
                moved = True
        if moved:
            return True
    return False


def _shift(held: Held, count: dict[str, int], toward: Chains, start: str) -> bool:
    """Move one partition along each link of ``start``'s chain if it still improves balance."""
    links: list[tuple[str, str, str]] = []
    member = start
    while (link := toward[member]) is not None:
        if not held[link[0]].get(member):
            return False
        links.append((member, *link))
        member = link[1]
    if count[start] < count[member] + 2:
        return False
    for giver, topic, receiver in links:  # the last given leaves first: owned ones stay longest
        held[topic].setdefault(receiver, []).append(held[topic][giver].pop())
    count[start], count[member] = count[start] - 1, count[member] + 1
    return True
