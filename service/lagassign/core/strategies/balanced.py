"""Balanced: lag balanced across all topics, counts balanced, sticky. The default strategy.

Rule.

1. Counts (:mod:`.quotas`). Per topic, each subscriber gets P // C or
   P // C + 1 partitions; members' totals are as even as the subscriptions
   allow (with identical subscriptions they differ by at most one); a member
   keeps its extra partition of a topic where it held one.
2. Lag. Minimise the largest member lag over all topics together (the seed
   ``lag-aware`` balances each topic alone). Partitions are dealt in rounds,
   largest lags to the least-loaded members (:mod:`.lag_rounds`), then the
   most-loaded member swaps or hands over partitions within the count rules
   while that lowers it (:mod:`.local_moves`).
3. Racks (:mod:`.racks`). With replica racks and member racks known, a
   partition is swapped onto a member in one of its replicas' racks when that
   keeps every count and raises the largest member lag by at most 1%.
4. Stickiness: the movement rule (:mod:`.owned`). Each member first keeps what
   it owned, up to its count targets (a member over target gives up the
   partitions that bring what it keeps nearest the mean member lag). The rest
   is dealt as above, and local moves then make only changes that take no
   partition from its previous owner. This *sticky answer* stands when its
   largest member lag is within ``TOLERANCE`` (1.05) of the *fresh answer*'s,
   the one computed as if nobody owned anything (when it is within 1.05 of the
   lower bound, max(mean member lag, largest partition), the fresh answer is
   not even computed). Otherwise local moves may move owned partitions too,
   those reaching the goal with the fewest moves first, and stop as soon as the
   sticky answer is within 1.05 of the fresh one: a partition moves only for a
   real gain. If they cannot get there, a growing share of the heaviest
   partitions is dealt again (:mod:`.redeal`); failing that, the fresh answer
   is used, each member of a given subscription taking the partition set it
   owned most of.
5. Never worse than ``lag-aware``: when the answer's largest member lag is
   above the one ``lag-aware`` gives on the same input, local moves continue
   down to it (the fewest moves first when partitions were owned, then
   re-dealing the heaviest). Both balance every topic; ``lag-aware`` can only
   do better by leaving the totals uneven (two members, topics of three
   partitions [142, 71, 58] and [90, 55, 50]: 232 and 234 with two and four
   partitions, against 247 at best with three each). So next, hand-overs may
   leave the totals uneven; failing that, ``lag-aware``'s own answer is used,
   its partition sets handed out as in 4. Either way the totals are then evened
   out as far as ``lag-aware``'s lag allows. This is the one case where totals
   may differ by more than the subscriptions force: being at least as good as
   ``lag-aware`` comes first. In seeded small groups it happens about once in a
   hundred; with owned partitions taking ``lag-aware``'s answer can move many.

With the same input as last time (members own what balanced gave, same lags)
the sticky answer is last time's answer and nothing moves.

Example (the seed's weakness): members a and b, topics t0 .. t9 each with two
partitions of lags 100 and 1. ``lag-aware`` gives a the 100 of every topic:
1,000 against 10. Balanced deals the ten rounds in topic order (all lead with
100), the 100 to the lighter member and the 1 to the other:

    t0: a <- 100, b <- 1      a = 100, b = 1
    t1: b <- 100, a <- 1      a = 101, b = 101
    t2: a <- 100, b <- 1      ...
    t9: b <- 100, a <- 1      a = 505, b = 505

a holds partition 0 of t0, t2, t4, t6, t8 and partition 1 of the others.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from lagassign.core.model import Assignment, Rebalance
from lagassign.core.strategies.group_index import GroupIndex
from lagassign.core.strategies.lag_aware import assign as lag_aware_assign
from lagassign.core.strategies.lag_rounds import deal_rounds
from lagassign.core.strategies.local_moves import even_counts, lower_max_lag
from lagassign.core.strategies.owned import keep_owned
from lagassign.core.strategies.placement import Placement
from lagassign.core.strategies.quotas import count_targets
from lagassign.core.strategies.racks import place_by_rack
from lagassign.core.strategies.range import java_order
from lagassign.core.strategies.redeal import redeal_heaviest

TOLERANCE = 1.05
MOVE_BUDGET = 2_000_000  # partitions local moves may look at per call
FRUGAL_BUDGET = 16  # more, per partition, when owned partitions may move


def assign(rebalance: Rebalance) -> Assignment:
    """The balanced assignment of ``rebalance`` (every member listed, lists sorted)."""
    with _collector_paused():
        index = GroupIndex(rebalance)
        previous: list[int] | None = index.previous_owners()
        if previous is not None and max(previous, default=-1) < 0:
            previous = None
        if previous is None:
            chosen, base = _place(index, None)
        else:
            chosen, base = _sticky(index, previous)
        return _no_worse_than_lag_aware(index, chosen, base, previous).assignment()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while the answer is built.

    An answer for a million partitions is a million small lists; the collector
    would walk them again and again as they are made (four times the rest of the
    work), and nothing made here forms a reference cycle. It is switched back on
    on the way out, if it was on.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _sticky(index: GroupIndex, previous: list[int]) -> tuple[Placement, list[int]]:
    candidate, base = _place(index, previous)
    if candidate.max_load() <= TOLERANCE * index.lower_bound():
        return candidate, base
    fresh, _ = _place(index, None)
    goal = TOLERANCE * fresh.max_load()
    lower_max_lag(candidate, base, stop_at=goal, budget=_frugal_budget(index), frugal=True)
    if candidate.max_load() <= goal:
        return candidate, base
    redealt = redeal_heaviest(candidate, base, goal, _frugal_budget(index))
    if redealt is not None:
        return redealt, base
    return _relabel(index, fresh, previous), base


def _frugal_budget(index: GroupIndex) -> int:
    return MOVE_BUDGET + FRUGAL_BUDGET * index.partition_count


def _place(index: GroupIndex, previous: list[int] | None) -> tuple[Placement, list[int]]:
    """Keep owned partitions within the count targets, deal the rest, improve the dealt ones."""
    topics = range(len(index.topics))
    owned: list[Counter[int]] = []
    if previous is not None:
        owned = [Counter(previous[index.offsets[t] : index.offsets[t + 1]]) for t in topics]
    targets = count_targets(index, owned)
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
    lower_max_lag(placement, targets.base, stop_at=index.lower_bound(), budget=MOVE_BUDGET)
    place_by_rack(placement)
    return placement, targets.base


def _no_worse_than_lag_aware(
    index: GroupIndex, chosen: Placement, base: list[int], previous: Sequence[int] | None
) -> Placement:
    if chosen.max_load() <= _lag_aware_floor(index):
        return chosen
    theirs = Placement.of_assignment(index, lag_aware_assign(index.rebalance), previous)
    limit = theirs.max_load()
    if chosen.max_load() <= limit:
        return chosen
    if previous is None:
        lower_max_lag(chosen, base, stop_at=limit, budget=MOVE_BUDGET, patient=True)
    else:
        lower_max_lag(chosen, base, stop_at=limit, budget=_frugal_budget(index), frugal=True)
        if chosen.max_load() > limit:
            chosen = redeal_heaviest(chosen, base, limit, _frugal_budget(index)) or chosen
    if chosen.max_load() <= limit:
        return chosen
    # Only uneven totals let lag-aware do better (its topics are count-balanced
    # too): hand partitions over regardless of totals, then even them out as far
    # as lag-aware's lag allows; failing that, take its answer, evened likewise.
    lower_max_lag(
        chosen, base, stop_at=limit, budget=_frugal_budget(index), frugal=True, uneven=True
    )
    if chosen.max_load() > limit:
        chosen = theirs if previous is None else _relabel(index, theirs, previous)
    even_counts(chosen, base, limit)
    return chosen


def _lag_aware_floor(index: GroupIndex) -> int:
    """A lower bound on the largest member lag ``lag-aware`` gives, without running it.

    ``lag-aware`` deals each topic in rounds of one partition per subscriber
    (fewest partitions first), so every subscriber gets one partition of each
    full round, at least the round's smallest; and the first partition, the
    largest, goes to the subscriber with the smallest member id.
    """
    lags, ids = index.lags, index.member_ids
    rank = [0] * len(ids)
    for i, m in enumerate(sorted(range(len(ids)), key=lambda m: java_order(ids[m]))):
        rank[m] = i
    floor = [0] * len(ids)
    for t, parts in enumerate(index.by_lag()):
        subs = index.subscribers[t]
        if not parts or not subs:
            continue
        size = len(subs)
        rounds = len(parts) // size
        every = sum(lags[parts[(k + 1) * size - 1]] for k in range(rounds))
        for m in subs:
            floor[m] += every
        first = min(subs, key=rank.__getitem__)
        floor[first] += lags[parts[0]] - (lags[parts[size - 1]] if rounds else 0)
    return max(floor, default=0)


def _relabel(index: GroupIndex, placement: Placement, previous: Sequence[int]) -> Placement:
    """The same partition sets, each to a member of the same subscription that owned most of it."""
    subscribed = index.subscribed
    overlap: Counter[tuple[int, int]] = Counter(
        (m, p)
        for m, p in zip(placement.owner, previous, strict=True)
        if p >= 0 and subscribed[p] == subscribed[m]
    )
    to: dict[int, int] = {}
    taken: set[int] = set()
    for (m, p), _ in sorted(overlap.items(), key=lambda kv: (-kv[1], kv[0])):
        if m not in to and p not in taken:
            to[m] = p
            taken.add(p)
    free: dict[frozenset[int], list[int]] = {}
    rest: dict[frozenset[int], list[int]] = {}
    for m in range(len(index.member_ids)):
        if m not in taken:
            free.setdefault(subscribed[m], []).append(m)
        if m not in to:
            rest.setdefault(subscribed[m], []).append(m)
    for group, bundles in rest.items():
        to.update(zip(bundles, free[group], strict=True))
    return Placement.of_owners(index, [to[m] for m in placement.owner], previous)
