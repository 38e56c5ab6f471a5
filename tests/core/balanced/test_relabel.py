"""Relabelling another answer: the docstring's example."""

from __future__ import annotations

from lagassign.core.model import Member, make_rebalance
from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.relabel import relabel


def test_swapped_partition_sets_go_back_to_the_members_that_owned_them() -> None:
    members = [
        Member("a", ("t",), owned={"t": (0, 1)}, generation=1),
        Member("b", ("t",), owned={"t": (2, 3)}, generation=1),
    ]
    index = GroupIndex(make_rebalance(members, {"t": 4}, {"t": [4, 3, 2, 1]}))
    previous = index.previous_owner_array().tolist()
    other = Placement.of_owners(index, [1, 1, 0, 0], previous)
    assert other.moved() == 4
    relabelled = relabel(index, other, previous)
    assert relabelled.owner.tolist() == [0, 0, 1, 1]
    assert relabelled.moved() == 0
