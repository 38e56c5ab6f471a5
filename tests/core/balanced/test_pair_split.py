"""Exact re-splits: the docstring's example, where no single change helps."""

from __future__ import annotations

from lagassign.core.model import Member, make_rebalance
from lagassign.core.strategies.balanced.changes import Budget, best_change
from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.pair_split import best_split
from lagassign.core.strategies.balanced.placement import Placement, by_topic
from lagassign.core.strategies.balanced.tuning import TUNING


def test_four_and_three_partitions_54_and_51_are_resplit_to_53_at_most() -> None:
    members = [Member("h", ("t",)), Member("o", ("t",))]
    rebalance = make_rebalance(members, {"t": 7}, {"t": [29, 4, 6, 15, 23, 8, 20]})
    index = GroupIndex(rebalance)
    placement = Placement.of_owners(index, [0, 0, 0, 0, 1, 1, 1])
    assert placement.load == [54, 51]
    base = [3]
    mine = by_topic(placement.held[0], index.topic_of)
    no_change = best_change(placement, base, 0, 1, mine, Budget(1_000), TUNING.topic_work)
    assert no_change is None
    split = best_split(placement, base, 0, 1, True, TUNING)
    assert split is not None
    larger, gives, takes = split
    assert larger == 53
    for x in gives:
        placement.move(x, 1)
    for y in takes:
        placement.move(y, 0)
    assert sorted(placement.load) == [52, 53]
    assert sorted(len(held) for held in placement.held) == [3, 4]
