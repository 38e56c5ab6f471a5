"""What each member keeps of the partitions it owned.

A member keeps its owned partitions of a topic up to its count target there.
When it owned more (a member joined, or the extras moved), it gives up the
surplus so that what it keeps comes near the group's mean member lag: it sheds
its owned lag above the mean, one partition at a time, each time the one whose
lag is nearest to what is still to shed per partition still to give up. The
partitions given up are then dealt with the unowned ones, mostly to the members
that joined, who so end near the mean as well.

Example: the mean is 100 and a member owned t [90, 50, 40, 10] (190) with a
target of 3: it should shed 90 in one partition and gives up the 90, keeping
100. With owned lag below the mean it gives up its smallest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.quotas import CountTargets


def keep_owned(
    placement: Placement, targets: CountTargets, owned: Sequence[Mapping[int, int]]
) -> npt.NDArray[np.int64] | None:
    """Give each member what it keeps of ``placement.previous``; return who kept what.

    ``owned[t]`` counts the partitions of topic ``t`` each member owned. Every
    owned partition is kept but those a member over its target gives up; each
    member's kept partitions join its list in partition order. The result is
    the member that kept each flat partition (-1: nobody), None when nothing
    was owned.
    """
    index = placement.index
    previous = placement.previous
    if previous is None:
        return None
    offsets = index.offsets
    members = len(index.member_ids)
    surplus = [0] * members
    over: list[set[int]] = []
    for t, counts in enumerate(owned):
        over.append(set())
        base, extras = targets.base[t], targets.extras[t]
        if max(counts.values(), default=0) <= base:
            continue  # nobody owned more than its target
        for m, n in counts.items():
            target = base + (m in extras)
            if m >= 0 and n > target:
                over[t].add(m)
                surplus[m] += n - target
    to_shed = [0.0] * members
    lags: list[int] = []  # per flat partition, needed only when some member sheds
    if any(surplus):
        lags = index.lags
        mean = sum(lags) / members
        to_shed = [-mean] * members
        for x, m in enumerate(previous.tolist()):
            if m >= 0:
                to_shed[m] += lags[x]
    owner = index.previous_owner_array().copy()
    for t, shedding in enumerate(over):
        given_up: dict[int, list[int]] = {m: [] for m in sorted(shedding)}
        for x in range(offsets[t], offsets[t + 1]) if shedding else ():
            m = int(previous[x])
            if m in shedding:
                given_up[m].append(x)
        for m, keep in given_up.items():
            for _ in range(len(keep) - targets.target(m, t)):
                each = to_shed[m] / surplus[m]
                x = min(keep, key=lambda x: (abs(lags[x] - each), x))
                keep.remove(x)
                owner[x] = -1
                to_shed[m] -= lags[x]
                surplus[m] -= 1
    kept = np.flatnonzero(owner >= 0)
    placement.take(kept, owner[kept])
    return owner
