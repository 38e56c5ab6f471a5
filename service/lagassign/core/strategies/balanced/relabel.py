"""Handing another answer's partition sets to the members that owned most of them.

When a stage falls back on a whole other answer (the fresh one, or
``lag-aware``'s), its partition sets are kept but each goes to a member of the
same subscription that owned most of it, so as few partitions move as that
answer allows.

Example: a owned t-0 and t-1, b owned t-2 and t-3; the other answer gives a
{t-2, t-3} and b {t-0, t-1}. Relabelled, a gets {t-0, t-1} and b {t-2, t-3}:
nothing moves.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.placement import Placement, Previous


def relabel(index: GroupIndex, placement: Placement, previous: Previous) -> Placement:
    """The same partition sets, each to a member of the same subscription that owned most of it."""
    subscribed = index.subscribed
    owner: list[int] = placement.owner.tolist()
    previous = np.asarray(previous, dtype=np.int64)
    was: list[int] = previous.tolist()
    overlap: Counter[tuple[int, int]] = Counter(
        (m, p) for m, p in zip(owner, was, strict=True) if p >= 0 and subscribed[p] == subscribed[m]
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
    return Placement.of_owners(index, [to[m] for m in owner], previous)
