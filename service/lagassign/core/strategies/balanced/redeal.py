"""Re-dealing the heaviest partitions, when single changes cannot reach a lag goal.

Local moves change two members at a time. When a whole topic is out of shape
(a new topic read from earliest, every member holding two of its heavy
partitions paired by chance) they stall long before the goal. Then the
heaviest partitions are taken back and dealt again in rounds (:mod:`.lag_rounds`:
largest lag to the least-loaded member), each member getting back as many of
each topic as it gave, so every count stays. The share taken back grows
(``Tuning.redeal_shares``: 1%, 2%, 5%, 10%, 20%, 50% of the partitions) until the goal is met,
each try polished by frugal local moves. What moves stays near the share taken
back, far below handing out a whole fresh answer.

Example: 20 members each own two partitions of a topic read from earliest,
i and i + 20, both of lag 5,000,000 + 25,000 i, and eight small ones (up to
10,000 each) of another: the heaviest pairs sit together, 11,000,219 at most
against 10,517,188 in the fresh answer. Taking back the heaviest 1% (two
partitions) and polishing brings the largest to 10,620,808, within 1% of the
fresh answer, moving 16 partitions of 200.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from lagassign.core.strategies.balanced.lag_rounds import deal_rounds, open_slots_of
from lagassign.core.strategies.balanced.local_moves import FRUGAL, lower_max_lag
from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.tuning import TUNING, Tuning


def redeal_heaviest(
    placement: Placement, base: list[int], goal: float, tuning: Tuning = TUNING
) -> Placement | None:
    """The first re-deal of a growing share that brings the largest member lag to ``goal``.

    Each try is polished by frugal local moves; None when no share gets there.
    """
    index = placement.index
    lags, topic_of = index.lags, index.topic_of
    total = index.partition_count
    ranked: list[int] = []
    for share in tuning.redeal_shares:
        heavy = math.ceil(share * total)
        if heavy <= len(ranked):
            continue
        ranked = heapq.nlargest(heavy, range(total), key=lags.__getitem__)
        taken = set(ranked)
        trial = Placement(index, placement.previous, placement.by_totals)
        owner = placement.owner
        is_taken = np.zeros(total, dtype=bool)
        is_taken[ranked] = True
        kept = np.flatnonzero(~is_taken)
        trial.take(kept, owner[kept])
        open_slots: list[dict[int, int]] = [{} for _ in index.topics]
        for x in sorted(taken):
            m = int(owner[x])
            slots = open_slots[topic_of[x]]
            slots[m] = slots.get(m, 0) + 1
        unplaced = [[x for x in parts if x in taken] for parts in index.by_lag()]
        deal_rounds(trial, unplaced, list(map(open_slots_of, open_slots)))
        lower_max_lag(trial, base, FRUGAL, stop_at=goal, tuning=tuning)
        if trial.max_load() <= goal:
            return trial
    return None
