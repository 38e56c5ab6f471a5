"""Flow moves: where production makes partitions unlike, partition counts give way.

The count rule (each subscriber gets ``P // C`` or ``P // C + 1`` of a topic) evens
out work when partitions are alike. Under the ``drain`` lag model they are not: a
partition's weight holds its production until the group catches up, and a member
holding a partition whose production takes most of its capacity cannot also read
as many backlogged partitions as the others. So, only when the weights hold
production (``Rebalance.flows``) and the answer is still above its bar, the
heaviest member hands one of its partitions to a lighter subscriber of that
partition's topic, whatever the counts, while that brings the larger of the two
below its weight: each step picks the hand-over that brings it lowest, with the
lightest subscriber as the receiver. The sorted member weights fall at every step,
so the moves end; a budget of moves and of members and partitions looked at bounds
them for huge groups. With no production the
stage never runs and the answers are the count-balanced ones.

Example (the case counts cannot serve): members a and b of 500 records/s; one
topic whose partition 0 receives 450 records/s with no backlog, and partitions
1-3 hold 3,000 each and receive 29/s. The horizon is 9,000 / (1,000 - 537) =
19.4 s, so the weights are ``[8747, 3564, 3564, 3564]``. Two partitions each gives
the hot partition's owner 12,311 (a backlog of 3,000 drained at 21 records/s: two
and a half minutes); handing that 3,564 over gives ``{0}`` 8,747 and ``{1, 2, 3}``
10,692: both members caught up in 22 s.
"""

from __future__ import annotations

from lagassign.core.strategies.balanced.placement import Placement

#: Hand-overs one answer may make, at most (per partition of the group, and in all), and
#: the members and partitions all of them may look at together (a huge group stays fast).
BUDGET_PER_PARTITION = 2
BUDGET_MAX = 20_000
WORK_MAX = 2_000_000


def hand_over_by_weight(placement: Placement, stop_at: float) -> int:
    """Hand partitions from the heaviest member to lighter ones, counts aside; how many moved."""
    index = placement.index
    weights, topic_of, subscribed = index.lags, index.topic_of, index.subscribed
    load = placement.load
    budget = min(BUDGET_MAX, BUDGET_PER_PARTITION * index.partition_count)
    moves = work = 0
    while moves < budget and work < WORK_MAX:
        heaviest = max(range(len(load)), key=load.__getitem__)
        top = load[heaviest]
        if top <= stop_at:
            break
        lighter = sorted(range(len(load)), key=load.__getitem__)
        work += len(placement.held[heaviest])
        best: tuple[int, int, int] | None = None  # (weight after, partition, receiver)
        receivers: dict[int, int | None] = {}  # topic -> its lightest other subscriber
        for x in placement.held[heaviest]:
            weight = weights[x]
            if weight == 0:
                continue
            topic = topic_of[x]
            if topic not in receivers:
                receivers[topic] = None
                for m in lighter:  # the first, with identical subscriptions
                    work += 1
                    if m != heaviest and topic in subscribed[m]:
                        receivers[topic] = m
                        break
            receiver = receivers[topic]
            if receiver is None:
                continue
            after = max(top - weight, load[receiver] + weight)
            if after < top and (best is None or after < best[0]):
                best = (after, x, receiver)
        if best is None:
            break
        placement.move(best[1], best[2])
        moves += 1
    return moves
