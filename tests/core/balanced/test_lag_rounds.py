"""Dealing in rounds: the docstring's example."""

from __future__ import annotations

from lagassign.core.model import Member, make_rebalance
from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.lag_rounds import deal_rounds, open_slots_of
from lagassign.core.strategies.balanced.placement import Placement


def test_seven_partitions_to_three_members_in_two_full_rounds_and_a_last_one() -> None:
    members = [Member(m, ("t",)) for m in ("a", "b", "c")]
    rebalance = make_rebalance(members, {"t": 7}, {"t": [70, 60, 50, 40, 30, 20, 10]})
    index = GroupIndex(rebalance)
    placement = Placement(index)
    deal_rounds(placement, index.by_lag(), [open_slots_of({0: 3, 1: 2, 2: 2})])
    assert placement.held == [[0, 5, 6], [1, 4], [2, 3]]
    assert placement.load == [100, 90, 90]
