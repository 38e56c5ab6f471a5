"""The first stage: keep what members owned, deal the rest in rounds, polish, place by rack.

Each member keeps its owned partitions up to its count targets (:mod:`.quotas`,
:mod:`.owned`); the other partitions are dealt in rounds, largest lags to the
least-loaded members (:mod:`.lag_rounds`); costless local moves then lower the
largest member lag toward the lower bound (:mod:`.local_moves`), and partitions
are swapped onto their replicas' racks where that is nearly free (:mod:`.racks`).
With nothing owned this is the *fresh answer*.
"""

from __future__ import annotations

from collections import Counter

from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.lag_rounds import deal_rounds
from lagassign.core.strategies.balanced.local_moves import COSTLESS, lower_max_lag
from lagassign.core.strategies.balanced.owned import keep_owned
from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.quotas import count_targets
from lagassign.core.strategies.balanced.racks import place_by_rack
from lagassign.core.strategies.balanced.tuning import Tuning


def deal(
    index: GroupIndex, previous: list[int] | None, tuning: Tuning
) -> tuple[Placement, list[int]]:
    """The dealt placement, and per topic the base count P // C every subscriber holds."""
    topics = range(len(index.topics))
    owned: list[Counter[int]] = []
    if previous is not None:
        owned = [Counter(previous[index.offsets[t] : index.offsets[t + 1]]) for t in topics]
    targets = count_targets(index, owned, tuning)
    placement = Placement(index, previous)
    keep_owned(placement, targets, owned)
    unplaced = index.by_lag()
    open_slots = [
        dict.fromkeys(subs, count)
        for subs, count in zip(index.subscribers, targets.base, strict=True)
    ]
    for slots, extras in zip(open_slots, targets.extras, strict=True):
        for m in extras:
            slots[m] += 1
    if previous is not None:
        owner = placement.owner
        unplaced = [[x for x in parts if owner[x] < 0] for parts in unplaced]
        for t, counts in enumerate(owned):
            slots = open_slots[t]
            for m, n in counts.items():
                if m >= 0:
                    slots[m] -= min(n, slots[m])  # what it keeps
    deal_rounds(placement, unplaced, open_slots)
    lower_max_lag(placement, targets.base, COSTLESS, stop_at=index.lower_bound(), tuning=tuning)
    place_by_rack(placement, tuning)
    return placement, targets.base
