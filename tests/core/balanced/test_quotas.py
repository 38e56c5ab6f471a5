"""The count targets' docstring example."""

from __future__ import annotations

from lagassign.core.model import Member, make_rebalance
from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.quotas import count_targets


def test_the_extras_of_a_four_and_a_two_partition_topic_even_three_members_out() -> None:
    topics = ("t0", "t1")
    members = [Member("a", topics), Member("b", topics), Member("c", topics)]
    index = GroupIndex(make_rebalance(members, {"t0": 4, "t1": 2}))
    targets = count_targets(index, [])
    a, b, c = 0, 1, 2
    assert targets.base == [1, 0]
    assert targets.extras == [{a}, {b, c}]
    assert [targets.target(m, 0) + targets.target(m, 1) for m in (a, b, c)] == [2, 2, 2]
