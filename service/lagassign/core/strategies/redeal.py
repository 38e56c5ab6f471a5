"""Re-dealing the heaviest partitions, when single changes cannot reach a lag goal.

Local moves change two members at a time. When a whole topic is out of shape
(a new topic read from earliest, every member holding two of its heavy
partitions paired by chance) they stall long before the goal. Then the
heaviest partitions are taken back and dealt again in rounds (:mod:`.lag_rounds`:
largest lag to the least-loaded member), each member getting back as many of
each topic as it gave, so every count stays. The share taken back grows,
``SHARES``: 1%, 2%, 5%, 10%, 20%, 50% of the partitions, until the goal is met,
each try polished by frugal local moves. What moves stays near the share taken
back, far below handing out a whole fresh answer.

Example: 1,000 members each hold two partitions of a topic with lags near
5,000,000 (one in ten lower or higher by up to 10%) and 98 small ones. Taking
back the heaviest 2% deals the 1,000 largest first, one each, then the 1,000
smallest, the largest of them to the members that got the smallest: each pair
ends near the mean.
"""

from __future__ import annotations

import heapq
import math

from lagassign.core.strategies.lag_rounds import deal_rounds
from lagassign.core.strategies.local_moves import lower_max_lag
from lagassign.core.strategies.placement import Placement

SHARES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5)


def redeal_heaviest(
    placement: Placement, base: list[int], goal: float, budget: int
) -> Placement | None:
    """The first re-deal of a growing share that brings the largest member lag to ``goal``."""
    index = placement.index
    lags, topic_of = index.lags, index.topic_of
    total = index.partition_count
    ranked: list[int] = []
    for share in SHARES:
        heavy = math.ceil(share * total)
        if heavy <= len(ranked):
            continue
        ranked = heapq.nlargest(heavy, range(total), key=lags.__getitem__)
        taken = set(ranked)
        trial = Placement(index, placement.previous)
        open_slots: list[dict[int, int]] = [{} for _ in index.topics]
        for x, m in enumerate(placement.owner):
            if x in taken:
                slots = open_slots[topic_of[x]]
                slots[m] = slots.get(m, 0) + 1
            else:
                trial.give(x, m)
        unplaced = [[x for x in parts if x in taken] for parts in index.by_lag()]
        deal_rounds(trial, unplaced, open_slots)
        lower_max_lag(trial, base, stop_at=goal, budget=budget, frugal=True)
        if trial.max_load() <= goal:
            return trial
    return None
