"""The slow reference of the compiled exact re-split (``native/src/pair_split.rs``), for tests.

The Python the balanced strategy ran before its local moves were compiled, unchanged.
Re-splitting two members' partitions exactly, when they hold only a few.

Single swaps and hand-overs get stuck when the partitions are few and their
lags coarse (two members, 3 + 4 partitions). For two members ``h`` and ``o``
holding at most ``Tuning.split_max_partitions`` (14) partitions of the topics both subscribe to,
every re-split of those partitions that keeps the count rules is tried: per
topic each still holds P // C or P // C + 1, and their totals stay the same or
trade places. The re-split leaving the larger of their lags lowest wins (the
one moving fewest partitions from their previous owners among equals), if it
is lower than ``h``'s lag now. With ``free``, only re-splits that leave no more
partitions away from their previous owners count; with ``uneven``, the totals
may change.

Example: h holds [29, 4, 6, 15] = 54 and o holds [23, 8, 20] = 51 of one
topic, four and three of seven. No single swap or hand-over helps; the
re-splits such as h = [23, 15, 8, 6] = 52, o = [29, 20, 4] = 53 bring the larger to 53.
"""

from __future__ import annotations

from itertools import combinations

from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.tuning import Tuning

# per topic: (partitions h takes, their lag sum, cost, those partitions)
Option = tuple[int, int, int, tuple[int, ...]]


def best_split(
    placement: Placement,
    base: list[int],
    h: int,
    o: int,
    free: bool,
    tuning: Tuning,
    uneven: bool = False,
) -> tuple[int, list[int], list[int]] | None:
    """The best exact re-split: (larger lag after, partitions h gives, partitions h takes)."""
    index = placement.index
    lags, topic_of, owner, cost = index.lags, index.topic_of, placement.owner, placement.cost
    shared = index.subscribed[h] & index.subscribed[o]
    pools: dict[int, list[int]] = {}
    for m in (h, o):
        for x in placement.held[m]:
            if topic_of[x] in shared:
                pools.setdefault(topic_of[x], []).append(x)
    size = sum(len(pool) for pool in pools.values())
    if size > tuning.split_max_partitions or size < 2:
        return None
    options: list[list[Option]] = []
    for t in sorted(pools):
        pool = pools[t]
        sizes = [k for k in (base[t], base[t] + 1) if base[t] <= len(pool) - k <= base[t] + 1]
        # the cost of a split: what goes to h from o, and what goes to o from h
        to_h = {x: cost(x, h) if owner[x] == o else 0 for x in pool}
        to_o = {x: cost(x, o) if owner[x] == h else 0 for x in pool}
        spread = sum(to_o.values())
        options.append(
            [
                (k, sum(lags[x] for x in c), spread + sum(to_h[x] - to_o[x] for x in c), c)
                for k in sizes
                for c in combinations(pool, k)
            ]
        )
    mine = {x for pool in pools.values() for x in pool if placement.owner[x] == h}
    pooled = sum(lags[x] for pool in pools.values() for x in pool)
    fixed_h = placement.load[h] - sum(lags[x] for x in mine)
    fixed_o = placement.load[o] - (pooled - sum(lags[x] for x in mine))
    totals = {len(placement.held[h]), len(placement.held[o])}
    outside_h = len(placement.held[h]) - len(mine)
    best: tuple[int, int, tuple[tuple[int, ...], ...]] | None = None
    tried = 0
    stack: list[tuple[int, int, int, int, tuple[tuple[int, ...], ...]]] = [(0, 0, 0, 0, ())]
    while stack:
        depth, count, lag, moved, chosen = stack.pop()
        if depth == len(options):
            tried += 1
            if tried > tuning.split_max_tries:
                return None
            if (uneven or outside_h + count in totals) and not (free and moved > 0):
                larger = max(fixed_h + lag, fixed_o + pooled - lag)
                if best is None or (larger, moved, chosen) < best:
                    best = (larger, moved, chosen)
            continue
        for k, part_lag, part_cost, part in options[depth]:
            stack.append((depth + 1, count + k, lag + part_lag, moved + part_cost, (*chosen, part)))
    if best is None or best[0] >= placement.load[h]:
        return None
    keep = {x for part in best[2] for x in part}
    return best[0], sorted(mine - keep), sorted(keep - mine)
