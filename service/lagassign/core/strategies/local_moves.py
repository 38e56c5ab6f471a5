"""Local moves: lower the most-loaded member's lag without breaking the count targets.

Repeatedly, the member with the most lag (``h``) looks at the members with the
least lag, lightest first, and with the first that can help makes the change
(:mod:`.changes`: a swap, a hand-over or an exchange) that brings the larger
of the two lags lowest. When none helps and the two hold few partitions, their
partitions are re-split exactly (:mod:`.pair_split`). A change is made only
when both members end below ``h``'s lag, so the sorted member lags fall at
every step and the moves end. When ``h`` cannot be helped, any two members
even out their lags with the same changes (which never raises the largest lag
and may open a way for ``h``), and ``h`` tries again, a few times at most.

Stickiness. By default only changes that leave no more partitions away from
their previous owner are made, so dealt partitions are rearranged freely but no
owned partition leaves for nothing. ``frugal`` allows any change, and first
those that bring both members to ``stop_at`` with the fewest moves.

Everything ends when the largest lag reaches ``stop_at``, when 32 changes in a
row gained less than 0.1% together (unless ``patient``), or when the work
budget (partitions looked at) is spent, which keeps huge groups fast.
"""

from __future__ import annotations

import heapq

from lagassign.core.strategies.changes import Budget, Change, apply_change, best_change, by_topic
from lagassign.core.strategies.pair_split import best_split
from lagassign.core.strategies.placement import Placement

PARTNERS = 24  # the lightest members each step considers
EVENING_ROUNDS = 3
EVENING_WORK = 200_000  # work each evening round may take at most
SPLIT_WORK = 2_000  # work charged for trying an exact re-split with one member
STALL_STEPS, STALL_GAIN = 32, 1e-3  # stop when 32 changes gained under 0.1% together


def lower_max_lag(
    placement: Placement,
    base: list[int],
    *,
    stop_at: float,
    budget: int,
    frugal: bool = False,
    patient: bool = False,
    uneven: bool = False,
) -> None:
    """Lower the largest member lag as far as the changes above can, within ``budget``.

    ``patient`` (implied by ``frugal``) keeps going after small gains: for a
    ``stop_at`` that must be reached, not merely approached. ``uneven`` lets
    hand-overs leave the totals uneven (each topic stays balanced).
    """
    work = Budget(budget)
    goal = stop_at if frugal else None
    patient = patient or frugal
    improve(placement, base, stop_at, work, goal, patient, uneven)
    for _ in range(0 if frugal else EVENING_ROUNDS):
        top = placement.max_load()
        side = Budget(min(work.left, EVENING_WORK))
        given = side.left
        if top <= stop_at or given <= 0 or not even_out(placement, base, side):
            return
        work.left -= given - side.left
        improve(placement, base, stop_at, work, None, patient)
        if placement.max_load() >= top:
            return


def improve(
    placement: Placement,
    base: list[int],
    stop_at: float,
    work: Budget,
    goal: float | None = None,
    patient: bool = False,
    uneven: bool = False,
) -> int:
    """Change the most-loaded member while that helps; return how many changes were made."""
    topic_of = placement.index.topic_of
    load, held = placement.load, placement.held
    everyone = range(len(load))
    changes = 0
    tops: list[int] = []
    while work.left > 0:
        h = max(everyone, key=load.__getitem__)
        top = load[h]
        if top <= stop_at or (not patient and _stalled(tops, top)):
            break
        tops.append(top)
        mine = by_topic(held[h], topic_of)
        lighter = heapq.nsmallest(
            PARTNERS, (m for m in everyone if load[m] < top), key=load.__getitem__
        )
        work.left -= len(held[h]) + len(load)
        best: Change | None = None
        for o in lighter:
            change = best_change(placement, base, h, o, mine, work, goal, uneven)
            if change is not None and (best is None or change < best):
                best = change
            if best is not None and (goal is None or (best[0] == 0 and best[1] <= 1)):
                break  # the lightest partner that helps will do
        if best is not None:
            apply_change(placement, h, best)
        elif not _resplit(placement, base, h, lighter, work, goal is None, uneven):
            break
        changes += 1
    return changes


def _stalled(tops: list[int], top: int) -> bool:
    """True when the last STALL_STEPS changes together gained under STALL_GAIN of the lag."""
    return len(tops) >= STALL_STEPS and tops[-STALL_STEPS] - top < STALL_GAIN * top


def even_out(placement: Placement, base: list[int], work: Budget) -> int:
    """Make costless changes between any two members that lower the larger of their lags."""
    topic_of = placement.index.topic_of
    load, held = placement.load, placement.held
    changes = 0
    progress = True
    while progress and work.left > 0:
        progress = False
        order = sorted(range(len(load)), key=lambda m: (-load[m], m))
        work.left -= len(load)
        for i, a in enumerate(order):
            mine = by_topic(held[a], topic_of)
            work.left -= len(held[a])
            for b in reversed(order[i + 1 :]):
                if load[b] >= load[a] or work.left <= 0:
                    break
                change = best_change(placement, base, a, b, mine, work)
                if change is not None:
                    apply_change(placement, a, change)
                    changes += 1
                    progress = True
                    break
            if progress or work.left <= 0:
                break
    return changes


def even_counts(placement: Placement, base: list[int], limit: float) -> int:
    """Hand partitions from members holding two more than another, while lags stay within ``limit``.

    A hand-over takes the smallest partition of a topic the giver holds
    P // C + 1 of and the taker P // C; it brings the totals closer.
    """
    index = placement.index
    lags, topic_of, subscribed = index.lags, index.topic_of, index.subscribed
    load, held = placement.load, placement.held
    changes = 0
    progress = True
    while progress:
        progress = False
        order = sorted(range(len(held)), key=lambda m: (-len(held[m]), m))
        for a in order:
            mine = by_topic(held[a], topic_of)
            for b in reversed(order):
                if len(held[b]) + 2 > len(held[a]):
                    break
                theirs = by_topic(held[b], topic_of)
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


def _resplit(
    placement: Placement,
    base: list[int],
    h: int,
    lighter: list[int],
    work: Budget,
    free: bool,
    uneven: bool,
) -> bool:
    """Apply the best exact re-split of ``h`` with one of ``lighter``, if any helps."""
    best: tuple[int, int, list[int], list[int]] | None = None
    for o in lighter:
        work.left -= SPLIT_WORK
        split = best_split(placement, base, h, o, free, uneven)
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
