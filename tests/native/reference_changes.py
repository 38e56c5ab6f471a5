"""The slow reference of the compiled changes (``native/src/changes.rs``), kept for tests.

The Python the balanced strategy ran before its local moves were compiled, unchanged.
Changes between two members: the swaps, hand-overs and exchanges that keep the count rules.

For a member ``h`` and a lighter member ``o``:

- swap: ``h`` gives a partition of topic t to ``o`` and takes back a smaller
  one of t; every count stays the same;
- hand over: ``h`` holds P // C + 1 partitions of t, ``o`` holds P // C of t and
  one partition fewer in all; ``h`` gives ``o`` one partition of t, and the two
  simply trade their counts (with ``uneven``, whatever their totals);
- exchange: ``h`` holds the extra of t1 and ``o`` the extra of t2 (each holding
  P // C of the other's topic); they trade one partition each.

:func:`best_change` finds the one that leaves the larger of the two lags
lowest, looking per topic only at the partners nearest to half the gap (a
bisection over ``o``'s partitions by lag), so a member with thousands of
partitions costs little. A change's *cost* is how many more partitions it
leaves away from their previous owner (:meth:`Placement.cost`); without a
goal only changes costing nothing count, with one (frugal) those bringing both
members to the goal at the least cost come first.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import numpy as np

from lagassign.core.strategies.balanced.placement import Placement

# (0, cost, partitions moved, shift, member, x, y) for a change reaching the goal, else
# (1, larger lag after, cost, partitions moved, member, x, y); y = -1 when one moves
Change = tuple[int, float, int, int, int, int, int]


class Budget:
    """Work left, in partitions looked at."""

    __slots__ = ("left",)

    def __init__(self, left: int) -> None:
        self.left = left


def apply_change(placement: Placement, h: int, change: Change) -> None:
    o, x, y = change[4:]
    placement.move(x, o)
    if y >= 0:
        placement.move(y, h)


def best_change(
    placement: Placement,
    base: list[int],
    h: int,
    o: int,
    mine: dict[int, list[int]],
    work: Budget,
    topic_work: int,
    goal: float | None = None,
    uneven: bool = False,
) -> Change | None:
    """The change between ``h`` and a lighter ``o`` that leaves the larger of their lags lowest.

    With a ``goal`` (frugal), a change bringing both to it at the least cost comes first;
    without, only costless changes are looked at. ``topic_work`` is charged to
    ``work`` per topic looked at, beside its partitions.
    """
    subscribed = placement.index.subscribed
    held = placement.held
    theirs = placement.held_by_topic(o)
    hands_over = uneven or len(held[o]) + 1 == len(held[h])
    spent = len(held[o])
    best: Change | None = None
    h_extras: list[int] = []
    o_extras: list[int] = []
    lone: list[tuple[int, int]] = []  # topics where each holds one partition: (x, y)
    shared = subscribed[o]
    nothing: list[int] = []
    for t, hx in mine.items():
        if t not in shared:
            continue
        oy = theirs.get(t, nothing)
        nx, ny = len(hx), len(oy)
        spent += nx + ny + topic_work
        if nx == 1 == ny:
            lone.append((hx[0], oy[0]))
        else:
            best = _better(best, placement, h, o, hx, oy, goal)
        if nx == base[t] + 1 and ny == base[t]:
            if hands_over:
                best = _better(best, placement, h, o, hx, None, goal)
            h_extras.append(t)
    for t, oy in theirs.items():
        if len(oy) == base[t] + 1 and t in subscribed[h] and len(mine.get(t, ())) == base[t]:
            o_extras.append(t)
    for t1 in h_extras:
        for t2 in o_extras:
            spent += len(mine[t1]) + len(theirs[t2]) + topic_work
            best = _better(best, placement, h, o, mine[t1], theirs[t2], goal)
    if lone:
        best = _better_swap(best, placement, h, o, lone, goal)
    work.left -= spent
    return best


def _better_swap(
    best: Change | None,
    placement: Placement,
    h: int,
    o: int,
    pairs: list[tuple[int, int]],
    goal: float | None,
) -> Change | None:
    """:func:`_better` over many one-for-one swaps (x of h for y of o), in arrays.

    Falls back on :func:`_better` pair by pair when lags do not fit exact float
    comparisons (2**53), which never happens with real offsets.
    """
    lags = placement.index.lag_array
    top, low = placement.load[h], placement.load[o]
    if lags.dtype != np.int64 or top >= 2**53:
        for x0, y0 in pairs:
            best = _better(best, placement, h, o, [x0], [y0], goal)
        return best
    gap = top - low
    need, room = (top - goal, goal - low) if goal is not None else (1.0, 0.0)
    x, y = np.array(pairs, dtype=np.int64).T
    d = lags[x] - lags[y]
    previous = placement.previous
    if previous is None:
        c = np.zeros(len(d), dtype=np.int64)
    else:
        # Placement.cost(x, o) + Placement.cost(y, h)
        home_x = np.array([previous[v] for v in x.tolist()], dtype=np.int64)
        home_y = np.array([previous[v] for v in y.tolist()], dtype=np.int64)
        c = (home_x >= 0) * ((home_x != o).astype(np.int64) - (home_x != h)) + (home_y >= 0) * (
            (home_y != h).astype(np.int64) - (home_y != o)
        )
    ok = (d > 0) & (d < gap)
    if goal is None:
        ok &= c <= 0
    if not ok.any():
        return best
    x, y, d, c = x[ok], y[ok], d[ok], c[ok]
    reach = (need <= d) & (d <= room)
    change: Change
    if reach.any():
        x, y, d, c = x[reach], y[reach], d[reach], c[reach]
        i = int(np.lexsort((y, x, d, c))[0])
        change = (0, int(c[i]), 2, int(d[i]), o, int(x[i]), int(y[i]))
    else:
        after = low + np.maximum(gap - d, d)
        i = int(np.lexsort((y, x, c, after))[0])
        change = (1, int(after[i]), int(c[i]), 2, o, int(x[i]), int(y[i]))
    return change if best is None or change < best else best


def _better(
    best: Change | None,
    placement: Placement,
    h: int,
    o: int,
    gives: list[int],
    takes: list[int] | None,
    goal: float | None,
) -> Change | None:
    """The better of ``best`` and the best change that moves one of ``gives`` to ``o``.

    With ``takes`` (a list), ``o`` gives back one of it; with None, nothing.
    """
    lags = placement.index.lags
    top, low = placement.load[h], placement.load[o]
    gap = top - low
    # a shift of lag in [need, room] brings both members to the goal
    need, room = (top - goal, goal - low) if goal is not None else (1.0, 0.0)
    cost = placement.cost
    candidates: list[tuple[int, int, int]] = []  # (cost, x, y)
    if takes is None:
        for x in gives:
            c = cost(x, o)
            if 0 < lags[x] < gap and (goal is not None or c <= 0):
                candidates.append((c, x, -1))
    elif takes and gives:
        # the cheapest pairs are searched class by class of what each partition costs
        give_by: dict[int, list[int]] = {}
        for x in gives:
            give_by.setdefault(cost(x, o), []).append(x)
        take_by: dict[int, list[int]] = {}
        for y in takes:
            take_by.setdefault(cost(y, h), []).append(y)
        half = gap / 2
        for cy, back in take_by.items():
            back = sorted(back, key=lags.__getitem__) if len(back) > 1 else back
            back_lags = [lags[y] for y in back]
            for cx, xs in give_by.items():
                if goal is None and cx + cy > 0:
                    continue
                for x in xs:
                    lx = lags[x]
                    i = bisect_left(back_lags, lx - half)
                    near = (
                        (i - 1, i, bisect_right(back_lags, lx - need) - 1) if goal else (i - 1, i)
                    )
                    for j in near:
                        if 0 <= j < len(back) and 0 < lx - back_lags[j] < gap:
                            candidates.append((cx + cy, x, back[j]))
    for c, x, y in candidates:
        d = lags[x] - (lags[y] if y >= 0 else 0)
        moves = 1 if y < 0 else 2
        if need <= d <= room:
            change: Change = (0, c, moves, d, o, x, y)
        else:
            change = (1, low + max(gap - d, d), c, moves, o, x, y)
        if best is None or change < best:
            best = change
    return best
