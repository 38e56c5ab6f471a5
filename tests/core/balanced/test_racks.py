"""Rack swaps: the docstring's example."""

from __future__ import annotations

from lagassign.core.model import Member, make_rebalance
from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.racks import place_by_rack


def test_two_partitions_off_their_racks_swap_for_one_lag_each() -> None:
    members = [Member("a", ("t",), rack="r1"), Member("b", ("t",), rack="r2")]
    racks = {"t": [["r2"], ["r1"]]}
    index = GroupIndex(make_rebalance(members, {"t": 2}, {"t": [50, 49]}, racks))
    placement = Placement.of_owners(index, [0, 1])
    assert place_by_rack(placement) == 1
    assert placement.owner.tolist() == [1, 0]
    assert placement.load == [49, 50]


def test_a_swap_onto_the_racks_keeps_partitions_with_their_previous_owners() -> None:
    members = [Member("a", ("t",), rack="r1"), Member("b", ("t",), rack="r2")]
    racks = {"t": [["r2"], ["r1"]]}
    index = GroupIndex(make_rebalance(members, {"t": 2}, {"t": [50, 49]}, racks))
    # each owned the partition on its rack: the swap brings both home
    home = Placement.of_owners(index, [0, 1], previous=[1, 0])
    assert place_by_rack(home) == 1
    assert home.owner.tolist() == [1, 0]
    # each owned the partition it holds: a swap would move both away from their owners
    away = Placement.of_owners(index, [0, 1], previous=[0, 1])
    assert place_by_rack(away) == 0
    assert away.owner.tolist() == [0, 1]
