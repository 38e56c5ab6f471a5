"""Count targets: how many partitions of each topic each member gets.

Per topic with P partitions and C subscribers, every subscriber gets P // C of
them and P % C subscribers (the topic's *extras*) get one more: counts of a
topic differ by at most one among its subscribers. Which subscribers take the
extras decides the members' totals, and is chosen so that:

1. the totals are as even as the subscriptions allow: no chain of moves
   ``A -> B -> ... -> Z`` exists (A hands an extra of some topic to B, who
   subscribes to it and has none of it, B hands on another ...) that would
   take one partition from a member to one holding two fewer. Such a chain is
   exactly what a better-balanced count needs, so when none is left no
   per-topic-balanced assignment has a lower maximum, a higher minimum or a
   smaller sum of squared totals. With identical subscriptions, totals differ
   by at most one;
2. within that, a member that owned more than P // C of a topic keeps its
   extra there (stickiness);
3. then extras spread by lag: topics whose extras carry the most lag choose
   first, each taking the members with the least extra lag so far, then a
   rotating order.

Example: members a, b, c; t0 has 4 partitions, t1 has 2. t0 gives one each
and one extra; t1 gives none to one member. t0 picks a (rotation), t1 picks b
and c, whose totals are lower: a = 2, b = 2, c = 2.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Mapping, Sequence

from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.tuning import TUNING, Tuning


class CountTargets:
    """Per topic the base count P // C and the set of members with one more."""

    __slots__ = ("base", "extras")

    def __init__(self, base: list[int], extras: list[set[int]]) -> None:
        self.base = base
        self.extras = extras

    def target(self, m: int, t: int) -> int:
        return self.base[t] + (1 if m in self.extras[t] else 0)


def count_targets(
    index: GroupIndex, owned: Sequence[Mapping[int, int]], tuning: Tuning = TUNING
) -> CountTargets:
    """Choose every topic's extras; ``owned[t]`` counts each member's previous partitions of t.

    ``owned`` is empty when nobody owned anything. The search for count-evening
    chains stops after ``tuning.chain_search_work``, reached only by groups far
    beyond the service's request limits.
    """
    subscribers = index.subscribers
    by_lag, lags = index.by_lag_arrays(), index.lag_array
    topics = range(len(index.topics))
    base = [0] * len(index.topics)
    spare = [0] * len(index.topics)
    for t in topics:
        if subscribers[t]:
            base[t], spare[t] = divmod(len(by_lag[t]), len(subscribers[t]))
    # members sharing a subscription share its list of topic numbers: one sum each
    shared_total: dict[int, int] = {}
    for ts in index.member_topics:
        if id(ts) not in shared_total:
            shared_total[id(ts)] = sum(map(base.__getitem__, ts))
    total = [shared_total[id(ts)] for ts in index.member_topics]
    extra_lag = [0.0] * len(index.member_ids)
    # an extra takes (roughly) one of the topic's smallest partitions
    weight = [
        int(lags[by_lag[t][len(by_lag[t]) - spare[t] :]].sum()) / spare[t] if spare[t] else 0.0
        for t in topics
    ]
    extras: list[set[int]] = [set() for _ in topics]
    for t in sorted((t for t in topics if spare[t]), key=lambda t: (-weight[t], t)):
        subs = subscribers[t]
        size = len(subs)

        def rank(
            i: int, t: int = t, subs: list[int] = subs, size: int = size
        ) -> tuple[int, int, float, int]:
            m = subs[i]
            keeps = 0 if owned and owned[t].get(m, 0) > base[t] else 1
            return (keeps, total[m], extra_lag[m], (i - t) % size)

        for i in heapq.nsmallest(spare[t], range(size), key=rank):
            m = subs[i]
            extras[t].add(m)
            total[m] += 1
            extra_lag[m] += weight[t]
    _even_out(index, base, extras, total, owned, tuning.chain_search_work)
    return CountTargets(base, extras)


def _even_out(
    index: GroupIndex,
    base: list[int],
    extras: list[set[int]],
    total: list[int],
    owned: Sequence[Mapping[int, int]],
    budget: int,
) -> None:
    """Move extras along chains until no member holds two more than one it could feed."""
    members = range(len(index.member_ids))
    extra_topics: list[list[int]] = [[] for _ in members]
    for t, ms in enumerate(extras):
        for m in ms:
            extra_topics[m].append(t)
    while budget > 0:
        low = min(total, default=0)
        moved = False
        for source in sorted(members, key=lambda m: (-total[m], m)):
            if total[source] < low + 2:
                break
            found, cost = _chain(index, extras, extra_topics, total, owned, base, source)
            budget -= cost
            if found:
                moved = True
                break
            if budget <= 0:
                break
        if not moved:
            return


def _chain(
    index: GroupIndex,
    extras: list[set[int]],
    extra_topics: list[list[int]],
    total: list[int],
    owned: Sequence[Mapping[int, int]],
    base: list[int],
    source: int,
) -> tuple[bool, int]:
    """Find and apply one chain from ``source`` to a member two below it; report work."""
    came_from: dict[int, tuple[int, int]] = {source: (-1, -1)}
    queue = deque([source])
    cost = 0
    while queue:
        m = queue.popleft()
        # hand on first the extras the member did not own
        for t in sorted(
            extra_topics[m], key=lambda t: (bool(owned) and owned[t].get(m, 0) > base[t], t)
        ):
            for w in index.subscribers[t]:
                cost += 1
                if w in came_from or w in extras[t]:
                    continue
                came_from[w] = (m, t)
                if total[w] <= total[source] - 2:
                    total[source] -= 1
                    total[w] += 1
                    while w != source:
                        giver, topic = came_from[w]
                        extras[topic].discard(giver)
                        extras[topic].add(w)
                        extra_topics[giver].remove(topic)
                        extra_topics[w].append(topic)
                        w = giver
                    return True, cost
                queue.append(w)
    return False, cost
