"""Exact re-splits: the local moves' example where no single change helps."""

from __future__ import annotations

from dataclasses import replace

from lagassign.core.model import Member, make_rebalance
from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.local_moves import COSTLESS, lower_max_lag
from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.tuning import TUNING


def test_four_and_three_partitions_54_and_51_are_resplit_to_53_at_most() -> None:
    # h = [29, 4, 6, 15] = 54, o = [23, 8, 20] = 51: no swap or hand-over lowers 54
    # (a swap shifts an odd amount of lag, at least 1 and never 1.5 either way)
    members = [Member("h", ("t",)), Member("o", ("t",))]
    rebalance = make_rebalance(members, {"t": 7}, {"t": [29, 4, 6, 15, 23, 8, 20]})
    index = GroupIndex(rebalance)
    placement = Placement.of_owners(index, [0, 0, 0, 0, 1, 1, 1])
    assert placement.load == [54, 51]
    lower_max_lag(placement, [3], COSTLESS, stop_at=index.lower_bound(), tuning=TUNING)
    assert sorted(placement.load) == [52, 53]
    assert sorted(len(held) for held in placement.held) == [3, 4]
    # of the re-splits reaching 53, the least by partition ids: h keeps 29 + 4 and takes 20
    assert placement.held == [[0, 1, 6], [4, 5, 2, 3]]
    assert placement.owner.tolist() == [0, 0, 1, 1, 1, 1, 0]


def test_without_the_resplit_the_moves_stop_at_54() -> None:
    members = [Member("h", ("t",)), Member("o", ("t",))]
    rebalance = make_rebalance(members, {"t": 7}, {"t": [29, 4, 6, 15, 23, 8, 20]})
    index = GroupIndex(rebalance)
    placement = Placement.of_owners(index, [0, 0, 0, 0, 1, 1, 1])
    no_split = replace(TUNING, split_max_partitions=6)
    lower_max_lag(placement, [3], COSTLESS, stop_at=index.lower_bound(), tuning=no_split)
    assert placement.load == [54, 51]
