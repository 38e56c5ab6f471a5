"""A placement's member lists (owner and stamp arrays) against plain Python lists.

The placement keeps no per-member lists: a member's partitions, in the order they
came to it, are its partitions by ascending stamp. Here random sequences of
``give``, ``take`` and ``move`` (and the compiled moves' restamping, through
``lower_max_lag``) are run on a placement and on a list model doing what the
placement did when it kept lists (``append`` on give, ``remove`` then ``append``
on move); the lists, owners and lags must agree after every step.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.local_moves import COSTLESS, lower_max_lag
from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.tuning import TUNING
from tests.strategies import plain_groups


class ListModel:
    """Owner per partition and each member's partitions as Python lists."""

    def __init__(self, index: GroupIndex) -> None:
        self.lags = index.lags
        self.owner = [-1] * index.partition_count
        self.held: list[list[int]] = [[] for _ in index.member_ids]
        self.load = [0] * len(index.member_ids)

    def give(self, x: int, m: int) -> None:
        self.owner[x] = m
        self.held[m].append(x)
        self.load[m] += self.lags[x]

    def move(self, x: int, to: int) -> None:
        m = self.owner[x]
        self.held[m].remove(x)
        self.load[m] -= self.lags[x]
        self.give(x, to)


Step = tuple[str, list[int], list[int]]


@st.composite
def histories(draw: st.DrawFn) -> tuple[GroupIndex, list[Step]]:
    """A group and steps: give or take unowned partitions, move owned ones."""
    index = GroupIndex(
        draw(plain_groups(max_members=4, max_topics=3, min_partitions=1, max_partitions=6))
    )
    size = len(index.member_ids)
    unowned = list(draw(st.permutations(range(index.partition_count))))
    steps: list[Step] = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["give", "take", "move", "moves"]))
        owned = sorted(set(range(index.partition_count)) - set(unowned))
        if kind == "give" and unowned:
            steps.append(("give", [unowned.pop()], [draw(st.integers(0, size - 1))]))
        elif kind == "take" and unowned:
            n = draw(st.integers(1, len(unowned)))
            parts, unowned = unowned[:n], unowned[n:]
            to = [draw(st.integers(0, size - 1)) for _ in parts]
            steps.append(("take", parts, to))
        elif kind == "move" and owned:
            steps.append(("move", [draw(st.sampled_from(owned))], [draw(st.integers(0, size - 1))]))
        elif kind == "moves" and not unowned:
            steps.append(("moves", [], []))
    return index, steps


def base_counts(index: GroupIndex) -> list[int]:
    return [n // len(index.member_ids) for n in np.diff(index.offsets).tolist()]


@settings(max_examples=300, deadline=None)
@given(histories())
def test_the_stamps_keep_each_members_partitions_in_the_order_lists_did(
    case: tuple[GroupIndex, list[Step]],
) -> None:
    index, steps = case
    placement = Placement(index)
    model = ListModel(index)
    for kind, parts, members in steps:
        if kind == "give":
            placement.give(parts[0], members[0])
            model.give(parts[0], members[0])
        elif kind == "take":
            placement.take(np.array(parts, dtype=np.int64), np.array(members, dtype=np.int64))
            for x, m in zip(parts, members, strict=True):
                model.give(x, m)
        elif kind == "move":
            placement.move(parts[0], members[0])
            model.move(parts[0], members[0])
        else:
            # the compiled moves restamp what changed (the placement takes it in); what
            # they left is the model's start for the steps after
            lower_max_lag(placement, base_counts(index), COSTLESS, stop_at=0.0, tuning=TUNING)
            model.owner = placement.owner.tolist()
            model.held = [list(parts) for parts in placement.held]
            assert placement.load == [sum(index.lags[x] for x in parts) for parts in model.held]
            model.load = list(placement.load)
        assert placement.owner.tolist() == model.owner
        assert placement.held == model.held
        assert placement.load == model.load
