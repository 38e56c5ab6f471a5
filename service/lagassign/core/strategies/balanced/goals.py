"""The two bars an answer must clear, and their quick checks.

- ``NEAR_FRESH`` (only when partitions were owned): the largest member lag is
  within ``Tuning.tolerance`` (1.05) of the *fresh answer*'s, the one dealt as
  if nobody owned anything. Quick check: within 1.05 of the lower bound
  (max(mean member lag, largest partition)), which no fresh answer beats, so the
  fresh answer is not even computed.
- ``LAG_AWARE``: the largest member lag is no higher than the one ``lag-aware``
  gives on the same input. Quick check: no higher than :func:`lag_aware_floor`,
  a bound on ``lag-aware``'s answer found without running it.
- ``NEAR_BOUND`` (only when the weights hold production): within 1.05 of the
  lower bound itself; the flow moves may leave the counts uneven to get there.

A quick check only ever says yes when the full one would; the full goal is
computed once, when first needed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.range import java_order

if TYPE_CHECKING:
    from lagassign.core.strategies.balanced.stages import Attempt


@dataclass(frozen=True, slots=True)
class Bar:
    """A goal for the largest member lag, with a cheaper bound that suffices."""

    name: str
    quick: Callable[[Attempt], float]
    full: Callable[[Attempt], float]


def _near_lower_bound(attempt: Attempt) -> float:
    return attempt.tuning.tolerance * attempt.index.lower_bound()


def _near_fresh(attempt: Attempt) -> float:
    return attempt.tuning.tolerance * attempt.fresh().max_load()


def _floor(attempt: Attempt) -> float:
    return lag_aware_floor(attempt.index)


def _lag_aware(attempt: Attempt) -> float:
    return attempt.lag_aware().max_load()


NEAR_FRESH = Bar("near-fresh", quick=_near_lower_bound, full=_near_fresh)
#: Only for flows (the ``flow-moves`` stage): within ``Tuning.tolerance`` of the lower bound.
NEAR_BOUND = Bar("near-bound", quick=_near_lower_bound, full=_near_lower_bound)
LAG_AWARE = Bar("lag-aware", quick=_floor, full=_lag_aware)


def lag_aware_floor(index: GroupIndex) -> int:
    """A lower bound on the largest member lag ``lag-aware`` gives, without running it.

    ``lag-aware`` deals each topic in rounds of one partition per subscriber
    (fewest partitions first), so every subscriber gets one partition of each
    full round, at least the round's smallest; and the first partition, the
    largest, goes to the subscriber with the smallest member id.

    Example: members a and b, one topic with lags [9, 7, 4, 1]: two full rounds
    give each at least 7 + 1, and a, first, the 9 instead of the 7: 10.
    """
    lags, ids = index.lag_array, index.member_ids
    rank = [0] * len(ids)
    for i, m in enumerate(sorted(range(len(ids)), key=lambda m: java_order(ids[m]))):
        rank[m] = i
    every = [0] * len(index.topics)  # per topic: what each subscriber gets at least
    first = [-1] * len(index.topics)  # per topic: the subscriber that gets the largest
    for topics, members in index.groups:  # the members of one subscription, together
        leader = min(members, key=rank.__getitem__)
        for t in topics:
            if first[t] < 0 or rank[leader] < rank[first[t]]:
                first[t] = leader
    bonus = [0] * len(ids)
    for t, parts in enumerate(index.by_lag_arrays()):
        size = len(index.subscribers[t])
        if not len(parts) or not size:
            continue
        rounds = len(parts) // size
        # the smallest of each full round: positions size - 1, 2 size - 1, ...
        every[t] = int(index.lag_array[parts[size - 1 : rounds * size : size]].sum())
        bonus[first[t]] += int(lags[parts[0]]) - (int(lags[parts[size - 1]]) if rounds else 0)
    floor = bonus
    for topics, members in index.groups:
        share = sum(every[t] for t in topics)
        for m in members:
            floor[m] += share
    return max(floor, default=0)
