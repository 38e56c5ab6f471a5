"""Rack-aware placement: partitions go to members in their replicas' racks when that is nearly free.

Used when the rebalance gives ``partition_racks`` and members give ``rack``
(Kafka's ``client.rack``). After lag balancing, a partition whose member is
outside its replica racks looks for a partition of the same topic, held by a
member inside one of those racks, to swap with. A swap keeps every count (one
partition of the same topic each way), never makes the other partition lose a
local replica, and is made only if both members end at or below the group's
largest member lag before this pass times ``1 + Tuning.rack_slack`` (one per cent).
The partner whose lag is closest is preferred, so most swaps cost almost no lag
at all. A swap that would take a partition from its previous owner (with no
other going back home) is not made: racks never cost stickiness.

Example: members a (rack r1) and b (rack r2); t-0 (lag 50, replicas on r2) is
on a and t-1 (lag 49, replicas on r1) on b. Swapping makes both local and
changes each member's lag by one (a 49, b 50), well inside the slack.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Sequence

from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.tuning import TUNING, Tuning


def place_by_rack(placement: Placement, tuning: Tuning = TUNING) -> int:
    """Swap partitions onto members in their replicas' racks; return the swaps made."""
    index = placement.index
    rebalance = index.rebalance
    rack_of = [m.rack for m in rebalance.members]
    if not rebalance.partition_racks or all(r is None for r in rack_of):
        return 0
    lags, owner, load = index.lags, placement.owner, placement.load
    limit = placement.max_load() * (1 + tuning.rack_slack)
    closest = tuning.rack_partners
    swaps = 0
    for t, topic in enumerate(index.topics):
        replica_racks = rebalance.partition_racks.get(topic)
        if not replica_racks:
            continue
        start = index.offsets[t]

        def local(
            m: int, x: int, start: int = start, racks: Sequence[Sequence[str]] = replica_racks
        ) -> bool:
            rack = rack_of[m]
            return rack is not None and rack in racks[x - start]

        # per rack: (lag, partition) of the partitions its members hold
        held_in: dict[str, list[tuple[int, int]]] = {}
        for x in range(start, index.offsets[t + 1]):
            rack = rack_of[owner[x]]
            if rack is not None:
                held_in.setdefault(rack, []).append((lags[x], x))
        for pairs in held_in.values():
            pairs.sort()
        for x in range(start, index.offsets[t + 1]):
            a = int(owner[x])
            if local(a, x):
                continue
            best: tuple[int, int] | None = None  # (lag difference, partner)
            for rack in sorted(set(replica_racks[x - start])):
                for y in _nearest(held_in.get(rack, []), lags[x], closest):
                    b = int(owner[y])
                    shift = lags[x] - lags[y]
                    if (
                        b != a
                        and (local(a, y) or not local(b, y))
                        and placement.cost(x, b) + placement.cost(y, a) <= 0
                        and load[a] - shift <= limit
                        and load[b] + shift <= limit
                    ):
                        if best is None or (abs(shift), y) < best:
                            best = (abs(shift), y)
                        break
            if best is None:
                continue
            y = best[1]
            b = int(owner[y])
            for z, rack in ((x, rack_of[a]), (y, rack_of[b])):
                if rack is not None:
                    pairs = held_in[rack]
                    del pairs[bisect_left(pairs, (lags[z], z))]
            placement.move(x, b)
            placement.move(y, a)
            for z, rack in ((x, rack_of[b]), (y, rack_of[a])):
                if rack is not None:
                    insort(held_in.setdefault(rack, []), (lags[z], z))
            swaps += 1
    return swaps


def _nearest(pairs: list[tuple[int, int]], lag: int, closest: int) -> list[int]:
    """Up to ``closest`` partitions of ``pairs`` (sorted by lag), nearest ``lag`` first."""
    out: list[int] = []
    right = bisect_left(pairs, (lag, -1))
    left = right - 1
    while len(out) < closest and (left >= 0 or right < len(pairs)):
        if right >= len(pairs) or (left >= 0 and lag - pairs[left][0] <= pairs[right][0] - lag):
            out.append(pairs[left][1])
            left -= 1
        else:
            out.append(pairs[right][1])
            right += 1
    return out
