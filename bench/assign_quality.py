"""The quality figures of one answer to one rebalance, as ``bench.assign`` prints them.

- per member (in rebalance order) its lag sum and partition count;
- ``max_member_lag``, ``mean_member_lag``, ``imbalance`` (max / mean),
  ``count_spread`` (most minus fewest partitions of a member) and
  ``gap_to_lower_bound`` (max / bound - 1) against the count-aware lower bound: the
  mean member lag, or the largest partition plus the smallest partitions its member
  must also hold (floor(P / C) - 1 of them with identical subscriptions, per-topic
  floors with different ones);
- ``moved``: owned partitions of subscribed topics that their owner does not get.
"""

from __future__ import annotations

import heapq
from typing import Any

from lagassign.core.model import Assignment, Rebalance


def member_loads(rebalance: Rebalance, assignment: Assignment) -> tuple[list[int], list[int]]:
    """Per member (in rebalance order): lag sum and partition count."""
    lags = rebalance.lags
    loads, counts = [], []
    for member in rebalance.members:
        topics = assignment.get(member.member_id, {})
        loads.append(sum(sum(map(lags[t].__getitem__, ps)) for t, ps in topics.items()))
        counts.append(sum(len(ps) for ps in topics.values()))
    return loads, counts


def lower_bound(rebalance: Rebalance) -> float:
    """The count-aware lower bound on the largest member lag (see the module docstring)."""
    members = len(rebalance.members)
    flat = [lag for lags in rebalance.lags.values() for lag in lags]
    if not flat:
        return 0.0
    mean = sum(flat) / members
    largest = max(flat)
    if len({m.topics for m in rebalance.members}) == 1:
        must_hold = len(flat) // members
    else:
        subscribers = rebalance.subscribers()
        floors = {t: n // len(subscribers[t]) for t, n in rebalance.partitions.items()}
        topic = next(t for t, lags in rebalance.lags.items() if largest in lags)
        must_hold = min(
            sum(floors[t] for t in m.topics) for m in rebalance.members if topic in m.topics
        )
    smallest = sorted(heapq.nsmallest(max(1, must_hold), flat))
    if smallest[-1] == largest:
        smallest.pop()  # the largest itself is among them: the others are the rest
    return max(mean, largest + sum(smallest[: max(0, must_hold - 1)]))


def moved(rebalance: Rebalance, assignment: Assignment) -> int:
    """Owned partitions of subscribed topics that their owner does not get.

    Owned sets never overlap in these scenarios, so every claim is rightful; a
    member that left owns nothing here.
    """
    count = 0
    for member in rebalance.members:
        got = assignment.get(member.member_id, {})
        subscribed = set(member.topics)
        for topic, parts in member.owned.items():
            if topic in subscribed:
                count += len(set(parts).difference(got.get(topic, ())))
    return count


def quality(rebalance: Rebalance, assignment: Assignment) -> dict[str, Any]:
    loads, counts = member_loads(rebalance, assignment)
    top = max(loads)
    mean = sum(sum(v) for v in rebalance.lags.values()) / len(loads)
    bound = lower_bound(rebalance)
    return {
        "max_member_lag": top,
        "mean_member_lag": round(mean, 1),
        "imbalance": round(top / mean, 4) if mean else 1.0,
        "lower_bound": round(bound, 1),
        "gap_to_lower_bound": round(top / bound - 1, 5) if bound else 0.0,
        "count_spread": max(counts) - min(counts),
    }
