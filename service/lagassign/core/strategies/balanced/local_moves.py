"""Local moves: lower the most-loaded member's lag without breaking the count targets.

The moves themselves (swaps, hand-overs, exchanges, the exact re-split of two
members, the evening out) are compiled, and explained once, in Rust:
``native/src/moves.rs`` and the files it uses (``changes.rs``, ``pair_split.rs``).
:func:`lower_max_lag` makes the one typed call (``lagassign._native.lower_max_lag``
with a :class:`MovesRequest`) and takes back what changed.

Where ``balanced`` lives: the steps that run once per request over members or
topics (quotas, owned partitions, stages and their bars, racks, flow moves,
:func:`even_counts`) are Python; the steps that run over every partition many
times (each topic's order by lag, the deal in rounds, the local moves) are Rust.
Each step is written in one language only.

What moves may do is one of three named rule sets (:class:`MoveRules`):

- ``COSTLESS``: only changes that leave no more partitions away from their
  previous owner; stops when 32 changes in a row gained less than 0.1%
  together (``Tuning.stall_steps``, ``Tuning.stall_gain``), then evens out;
- ``FRUGAL``: any change, first those that bring both members to the goal with
  the fewest moves; patient (the goal must be reached, not merely approached);
- ``UNEVEN``: as frugal, and hand-overs may leave the totals uneven (each topic
  stays balanced).

Everything ends when the largest lag reaches the goal (``stop_at``, rounded
down to a whole lag: lags are whole, so a member is within a bar exactly when
it is within its floor), or when the work budget (partitions looked at,
:class:`~.tuning.Tuning`) is spent, which keeps huge groups fast.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from lagassign._native import lower_max_lag as compiled_lower_max_lag
from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.tuning import Tuning


@dataclass(frozen=True, slots=True)
class MoveRules:
    """What local moves may do (see the module docstring for the three named sets)."""

    name: str
    frugal: bool  # any change, those reaching the goal with the fewest moves first; patient
    uneven: bool  # hand-overs may leave the totals uneven

    def budget(self, tuning: Tuning, partitions: int) -> int:
        """Work the moves may take: more, per partition, when owned partitions may move."""
        return tuning.frugal_budget(partitions) if self.frugal else tuning.move_budget


COSTLESS = MoveRules("costless", frugal=False, uneven=False)
FRUGAL = MoveRules("frugal", frugal=True, uneven=False)
UNEVEN = MoveRules("uneven", frugal=True, uneven=True)


@dataclass(frozen=True, slots=True)
class MovesRequest:
    """The compiled moves' one input: a placement, its count targets, the goal and the rules.

    Arrays are int64, one entry per flat partition (``topic_starts``: one per topic plus
    one). ``subscriptions``: ``(topics, members)`` per subscription, every member in one.
    ``base``: per topic, P // C. ``previous``: each partition's previous owner or -1, or
    None. ``owner`` (-1: nobody) and ``stamp`` (when it came to its owner) are read, not
    changed. ``stop_at``: the goal as a whole lag; ``work``: the budget. ``by_totals``:
    the layout keeps the totals within one, not each topic's counts (changes may then
    trade partitions of any two topics).
    """

    lags: npt.NDArray[np.int64]
    topic_starts: list[int]
    subscriptions: list[tuple[list[int], list[int]]]
    base: list[int]
    previous: npt.NDArray[np.int64] | None
    members: int
    owner: npt.NDArray[np.int64]
    stamp: npt.NDArray[np.int64]
    next_stamp: int
    stop_at: int
    work: int
    frugal: bool
    uneven: bool
    by_totals: bool
    tuning: Tuning


# Beyond any group's lag sum (2**32 partitions of 2**63 - 1 each), within what the moves take.
GOAL_REACH = 2**100


def whole_goal(stop_at: float) -> int:
    """``stop_at`` rounded down to a whole lag, within ±2**100."""
    if math.isnan(stop_at):
        raise ValueError("the goal of the local moves is NaN")
    if abs(stop_at) >= GOAL_REACH:
        return GOAL_REACH if stop_at > 0 else -GOAL_REACH
    return math.floor(stop_at)


def lower_max_lag(
    placement: Placement, base: list[int], rules: MoveRules, *, stop_at: float, tuning: Tuning
) -> None:
    """Lower the largest member lag toward ``stop_at`` as far as ``rules`` let local moves go."""
    index = placement.index
    moved = compiled_lower_max_lag(
        MovesRequest(
            # a group whose lag sum passes int64 holds its lags as Python ints (each an int64)
            lags=index.lag_array.astype(np.int64, copy=False),
            topic_starts=index.offsets,
            subscriptions=index.groups,
            base=base,
            previous=placement.previous,
            members=len(index.member_ids),
            owner=placement.owner,
            stamp=placement.stamp,
            next_stamp=placement.next_stamp,
            stop_at=whole_goal(stop_at),
            work=rules.budget(tuning, index.partition_count),
            frugal=rules.frugal,
            uneven=rules.uneven,
            by_totals=placement.by_totals,
            tuning=tuning,
        )
    )
    placement.rearrange(moved)


def even_counts(placement: Placement, base: list[int], limit: float) -> int:
    """Hand partitions from members holding two more than another, while lags stay within ``limit``.

    A hand-over takes the smallest partition of a topic the giver holds
    P // C + 1 of and the taker P // C; it brings the totals closer.
    """
    index = placement.index
    lags, subscribed = index.lags, index.subscribed
    load, held = placement.load, placement.held
    changes = 0
    progress = True
    while progress:
        progress = False
        order = sorted(range(len(held)), key=lambda m: (-len(held[m]), m))
        for a in order:
            mine = placement.held_by_topic(a)
            for b in reversed(order):
                if len(held[b]) + 2 > len(held[a]):
                    break
                theirs = placement.held_by_topic(b)
                for t in sorted(mine):
                    if (
                        t in subscribed[b]
                        and len(mine[t]) == base[t] + 1
                        and len(theirs.get(t, ())) == base[t]
                    ):
                        x = min(mine[t], key=lambda x: (lags[x], x))
                        if load[b] + lags[x] <= limit:
                            placement.move(x, b)
                            changes += 1
                            progress = True
                            break
                if progress:
                    break
            if progress:
                break
    return changes
