"""Local moves: lower the most-loaded member's lag without breaking the count targets.

Repeatedly, the member with the most lag (``h``) looks at the members with the
least lag, lightest first, and with the first that can help makes the change
(a swap, a hand-over or an exchange, see below) that brings the larger of the
two lags lowest. When none helps and the two hold few partitions, their
partitions are re-split exactly (every split of at most 14 partitions that keeps
the counts is tried). A change is made only
when both members end below ``h``'s lag, so the sorted member lags fall at
every step and the moves end. When ``h`` cannot be helped, any two members
even out their lags with the same changes (which never raises the largest lag
and may open a way for ``h``), and ``h`` tries again, a few times at most.

What moves may do is one of three named rule sets (:class:`MoveRules`):

- ``COSTLESS``: only changes that leave no more partitions away from their
  previous owner, so dealt partitions are rearranged freely but no owned
  partition leaves for nothing; stops when 32 changes in a row gained less than
  0.1% together (``Tuning.stall_steps``, ``Tuning.stall_gain``);
- ``FRUGAL``: any change, first those that bring both members to the goal with
  the fewest moves; patient (no stop on small gains: the goal must be reached,
  not merely approached), and no evening out;
- ``UNEVEN``: as frugal, and hand-overs may leave the totals uneven (each topic
  stays balanced).

Everything ends when the largest lag reaches the goal (``stop_at``), or when
the work budget (partitions looked at, :class:`~.tuning.Tuning`) is spent,
which keeps huge groups fast.

The changes between ``h`` and a lighter ``o``: a *swap* (``h`` gives a partition
of topic t and takes back a smaller one of t), a *hand-over* (``h`` holds
P // C + 1 of t, ``o`` P // C of t and one partition fewer in all; ``h`` gives
one), an *exchange* (each holds the extra of a topic the other holds P // C of;
they trade one partition each). Per topic only the partners nearest to half the
gap are looked at (a bisection over ``o``'s partitions by lag). A change's
*cost* is how many more partitions it leaves away from their previous owner.

The moves are compiled (``lagassign._native.lower_max_lag``, Rust: ``native/src/moves.rs``
and the files it uses); :func:`lower_max_lag` hands it the placement's owner and
stamp arrays, which it updates in place. Lags and lag sums are exact integers
there, compared exactly with a float goal, as Python compares them, and each
member's partitions keep their order (it decides which of equal lags a step
picks): the answers are those of the Python the moves were written in first,
which the tests keep as their slow reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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


def lower_max_lag(
    placement: Placement, base: list[int], rules: MoveRules, *, stop_at: float, tuning: Tuning
) -> None:
    """Lower the largest member lag toward ``stop_at`` as far as ``rules`` let local moves go."""
    index = placement.index
    lags = index.lag_array
    members, loads, next_stamp = compiled_lower_max_lag(
        lags if lags.dtype == np.int64 else index.lags,
        index.offsets,
        index.groups,
        base,
        placement.previous,
        len(index.member_ids),
        placement.owner,
        placement.stamp,
        placement.next_stamp,
        stop_at,
        rules.budget(tuning, index.partition_count),
        rules.frugal,
        rules.uneven,
        tuning,
    )
    placement.rearrange(members, loads, next_stamp)


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
