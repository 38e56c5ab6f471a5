"""The first stage: keep what members owned, deal the rest in rounds, polish, place by rack.

Each member keeps its owned partitions up to its count targets (:mod:`.quotas`,
:mod:`.owned`), or up to its total target when the previous layout was balanced
by totals and not by topic (:mod:`.by_totals`); the other partitions are dealt
in rounds, largest lags to the least-loaded members (:mod:`.lag_rounds`);
costless local moves then lower the largest member lag toward the lower bound
(:mod:`.local_moves`), and partitions are swapped onto their replicas' racks
where that is nearly free (:mod:`.racks`). With nothing owned this is the
*fresh answer*.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from lagassign.core.strategies.balanced.by_totals import balanced_by_totals, keep_to_totals
from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.lag_rounds import OpenSlots, deal_rounds
from lagassign.core.strategies.balanced.local_moves import COSTLESS, lower_max_lag
from lagassign.core.strategies.balanced.owned import keep_owned
from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.quotas import CountTargets, count_targets
from lagassign.core.strategies.balanced.racks import place_by_rack
from lagassign.core.strategies.balanced.tuning import Tuning


def deal(
    index: GroupIndex, previous: npt.NDArray[np.int64] | None, tuning: Tuning
) -> tuple[Placement, list[int]]:
    """The dealt placement, and per topic the base count P // C every subscriber holds."""
    owned: list[dict[int, int]] = []
    most: list[int] = []
    if previous is not None:
        owned, most = owned_counts(index)
    targets = count_targets(index, owned, tuning)
    placement = Placement(index, previous)
    if balanced_by_totals(index, most):
        unplaced, open_slots = keep_to_totals(placement)
    else:
        unplaced, open_slots = _keep_by_topic(placement, targets, owned)
    deal_rounds(placement, unplaced, open_slots)
    lower_max_lag(placement, targets.base, COSTLESS, stop_at=index.lower_bound(), tuning=tuning)
    place_by_rack(placement, tuning)
    return placement, targets.base


def _keep_by_topic(
    placement: Placement, targets: CountTargets, owned: list[dict[int, int]]
) -> tuple[list[npt.NDArray[np.int64]], list[OpenSlots]]:
    """Keep owned partitions up to the count targets; the rest by topic, largest lag
    first, and each topic's open slots (what each member still takes of it)."""
    index = placement.index
    kept = keep_owned(placement, targets, owned)
    unplaced = index.by_lag_arrays()
    open_slots: list[OpenSlots] = []
    members = len(index.member_ids)
    for t, subscribers in enumerate(index.subscriber_arrays()):
        takes = np.full(len(subscribers), targets.base[t], dtype=np.int64)
        if targets.extras[t]:
            takes[np.searchsorted(subscribers, sorted(targets.extras[t]))] += 1
        open_slots.append((subscribers, takes))
    if kept is not None:
        # what each member still takes: its target less what it kept
        unplaced = []
        for t, parts in enumerate(index.by_lag_arrays()):
            unplaced.append(parts[kept[parts] < 0])
            holders = kept[index.offsets[t] : index.offsets[t + 1]]
            holders = holders[holders >= 0]
            if len(holders):
                subscribers, takes = open_slots[t]
                held = np.bincount(holders, minlength=members)
                open_slots[t] = (subscribers, takes - held[subscribers])
    return unplaced, open_slots


def owned_counts(index: GroupIndex) -> tuple[list[dict[int, int]], list[int]]:
    """Per topic, how many of its partitions each member owned (-1: nobody owned them),
    and the most any member owned of it."""
    owners = index.previous_owner_array()
    out: list[dict[int, int]] = []
    most: list[int] = []
    for t in range(len(index.topics)):
        members, counts = np.unique(
            owners[index.offsets[t] : index.offsets[t + 1]], return_counts=True
        )
        out.append(dict(zip(members.tolist(), counts.tolist(), strict=True)))
        owners_from = 1 if len(members) and members[0] < 0 else 0  # -1 (nobody) sorts first
        most.append(int(counts[owners_from:].max(initial=0)))
    return out, most
