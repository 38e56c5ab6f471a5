"""Keeping a layout balanced by totals: owned partitions up to a member's total target.

Kafka's ``uniform`` assignor (and ``range`` over one topic) balances members by their
*totals*: each member gets a contiguous run, often of one topic. The count targets
(:mod:`.quotas`) are per topic, so keeping owned partitions only up to a member's
per-topic count would take back nearly everything such a layout gave (50 members
owning 200 partitions each of 5 topics keep 40 each: 8,000 moves for a layout that
was already balanced). So when the previous layout was balanced by totals and not by
topic, and every member subscribes to every topic, each member keeps its owned
partitions up to its *total* target (P // C, or one more for the P % C members that
owned the most); a member over it gives up the surplus nearest in lag to what it must
shed per partition (as :mod:`.owned` does), and the partitions nobody kept are dealt
to the members still short of their total, topic after topic. The answer then keeps
the totals within one, not each topic's counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.lag_rounds import OpenSlots
from lagassign.core.strategies.balanced.placement import Placement


def balanced_by_totals(index: GroupIndex, most: Sequence[int]) -> bool:
    """Whether the previous layout kept the totals within one but not each topic's counts.

    ``most[t]``: the most partitions of topic ``t`` any member owned (empty: nothing
    was owned). Only with identical subscriptions (any member may then take any
    partition): some member owned two or more above a topic's base count P // C, and the
    two or more members that owned anything owned within one of each other in all. A
    single owner is a group growing from one member, not a layout to keep: it is dealt
    by topic, so the two answers of a cooperative join (the first withholds what moves,
    the second gives it out) agree on what the owner keeps.
    """
    if not most or not index.identical:
        return False
    members = len(index.member_ids)
    sizes = np.diff(np.asarray(index.offsets, dtype=np.int64))
    if not (np.asarray(most, dtype=np.int64) >= sizes // members + 2).any():
        return False  # balanced by topic (the usual case), found in one pass over topics
    previous = index.previous_owner_array()
    totals = np.bincount(previous[previous >= 0], minlength=members)
    owning = totals[totals > 0]
    return len(owning) > 1 and int(owning.max()) - int(owning.min()) <= 1


def keep_to_totals(
    placement: Placement,
) -> tuple[list[npt.NDArray[np.int64]], list[OpenSlots]]:
    """Give each member its owned partitions up to its total target; return the rest by
    topic, largest lag first, and each topic's open slots (who takes how many of it)."""
    index = placement.index
    members = len(index.member_ids)
    previous = index.previous_owner_array()
    owner = previous.copy()
    totals = np.bincount(previous[previous >= 0], minlength=members)
    count = index.partition_count
    # P // C each, one more for the P % C members that owned the most (then the lower number)
    target = np.full(members, count // members, dtype=np.int64)
    most_first = np.lexsort((np.arange(members), -totals))
    target[most_first[: count % members]] += 1
    lags = index.lag_array
    mean = int(lags.sum()) / members if members else 0.0
    for m in np.flatnonzero(totals > target).tolist():
        mine = np.flatnonzero(previous == m)
        surplus = int(totals[m] - target[m])
        each = (int(lags[mine].sum()) - mean) / surplus  # lag to shed per partition given up
        nearest = np.argsort(np.abs(lags[mine].astype(np.float64) - each), kind="stable")
        owner[mine[nearest[:surplus]]] = -1
    kept = np.flatnonzero(owner >= 0)
    placement.by_totals = True
    placement.take(kept, owner[kept])
    short = target - np.bincount(owner[kept], minlength=members)
    # the slots still open, member after member, cut topic after topic by its unplaced count
    slots = np.repeat(np.arange(members, dtype=np.int64), short)
    open_slots: list[OpenSlots] = []
    at = 0
    for t in range(len(index.topics)):
        unplaced = int((owner[index.offsets[t] : index.offsets[t + 1]] < 0).sum())
        taking, takes = np.unique(slots[at : at + unplaced], return_counts=True)
        open_slots.append((taking, takes.astype(np.int64)))
        at += unplaced
    rest = [parts[owner[parts] < 0] for parts in index.by_lag_arrays()]
    return rest, open_slots
