"""The slow reference of the compiled local moves (``native/src/moves.rs``), kept for tests.

The Python the balanced strategy ran before its local moves were compiled, unchanged but
for the rule sets and ``even_counts``, which stay in the product
(:mod:`lagassign.core.strategies.balanced.local_moves`).
What the moves do is told in that module's docstring.
"""

from __future__ import annotations

import numpy as np

from lagassign.core.strategies.balanced.local_moves import MoveRules
from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.tuning import Tuning
from tests.native.reference_changes import Budget, Change, apply_change, best_change
from tests.native.reference_pair_split import best_split


def lower_max_lag(
    placement: Placement, base: list[int], rules: MoveRules, *, stop_at: float, tuning: Tuning
) -> None:
    """Lower the largest member lag toward ``stop_at`` as far as ``rules`` let local moves go."""
    work = Budget(rules.budget(tuning, placement.index.partition_count))
    goal = stop_at if rules.frugal else None
    improve(placement, base, stop_at, work, tuning, goal, rules.frugal, rules.uneven)
    for _ in range(0 if rules.frugal else tuning.evening_rounds):
        top = placement.max_load()
        side = Budget(min(work.left, tuning.evening_work))
        given = side.left
        if top <= stop_at or given <= 0 or not even_out(placement, base, side, tuning):
            return
        work.left -= given - side.left
        improve(placement, base, stop_at, work, tuning, None, patient=False)
        if placement.max_load() >= top:
            return


def improve(
    placement: Placement,
    base: list[int],
    stop_at: float,
    work: Budget,
    tuning: Tuning,
    goal: float | None = None,
    patient: bool = False,
    uneven: bool = False,
) -> int:
    """Change the most-loaded member while that helps; return how many changes were made."""
    partners, topic_work = tuning.partners, tuning.topic_work
    stall_steps, stall_gain = tuning.stall_steps, tuning.stall_gain
    load, held = placement.load, placement.held
    dtype = placement.index.lag_array.dtype
    changes = 0
    tops: list[int] = []
    while work.left > 0:
        loads = np.array(load, dtype=dtype)
        h = int(loads.argmax())  # the first of the most loaded
        top = load[h]
        if top <= stop_at or (not patient and _stalled(tops, top, stall_steps, stall_gain)):
            break
        tops.append(top)
        mine = placement.held_by_topic(h)
        # the ``partners`` least loaded below ``top``, equal lags by member number
        below = np.flatnonzero(loads < top)
        lighter: list[int] = below[loads[below].argsort(kind="stable")[:partners]].tolist()
        work.left -= len(held[h]) + len(load)
        best: Change | None = None
        for o in lighter:
            change = best_change(placement, base, h, o, mine, work, topic_work, goal, uneven)
            if change is not None and (best is None or change < best):
                best = change
            if best is not None and (goal is None or (best[0] == 0 and best[1] <= 1)):
                break  # the lightest partner that helps will do
        if best is not None:
            apply_change(placement, h, best)
        elif not _resplit(placement, base, h, lighter, work, goal is None, uneven, tuning):
            break
        changes += 1
    return changes


def _stalled(tops: list[int], top: int, steps: int, gain: float) -> bool:
    """True when the last ``steps`` changes together gained under ``gain`` of the lag."""
    return len(tops) >= steps and tops[-steps] - top < gain * top


def even_out(placement: Placement, base: list[int], work: Budget, tuning: Tuning) -> int:
    """Make costless changes between any two members that lower the larger of their lags."""
    load, held = placement.load, placement.held
    dtype = placement.index.lag_array.dtype
    changes = 0
    progress = True
    while progress and work.left > 0:
        progress = False
        # most loaded first, equal lags by member number
        order: list[int] = (-np.array(load, dtype=dtype)).argsort(kind="stable").tolist()
        work.left -= len(load)
        for i, a in enumerate(order):
            mine = placement.held_by_topic(a)
            work.left -= len(held[a])
            for b in reversed(order[i + 1 :]):
                if load[b] >= load[a] or work.left <= 0:
                    break
                change = best_change(placement, base, a, b, mine, work, tuning.topic_work)
                if change is not None:
                    apply_change(placement, a, change)
                    changes += 1
                    progress = True
                    break
            if progress or work.left <= 0:
                break
    return changes


def _resplit(
    placement: Placement,
    base: list[int],
    h: int,
    lighter: list[int],
    work: Budget,
    free: bool,
    uneven: bool,
    tuning: Tuning,
) -> bool:
    """Apply the best exact re-split of ``h`` with one of ``lighter``, if any helps."""
    best: tuple[int, int, list[int], list[int]] | None = None
    for o in lighter:
        work.left -= tuning.split_work
        split = best_split(placement, base, h, o, free, tuning, uneven)
        if split is not None and (best is None or split[0] < best[0]):
            best = (split[0], o, split[1], split[2])
    if best is None:
        return False
    _, o, gives, takes = best
    for x in gives:
        placement.move(x, o)
    for y in takes:
        placement.move(y, h)
    return True
