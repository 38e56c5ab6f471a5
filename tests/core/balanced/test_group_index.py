"""Flat numbering: the docstring's rule, partition p of topic t is offsets[t] + p."""

from __future__ import annotations

from lagassign.core.model import Member, make_rebalance
from lagassign.core.strategies.balanced.group_index import GroupIndex


def test_partitions_are_numbered_topic_by_topic_in_name_order() -> None:
    members = [Member("b", ("y", "x")), Member("a", ("x",))]
    rebalance = make_rebalance(members, {"y": 3, "x": 2}, {"x": [5, 6], "y": [7, 8, 9]})
    index = GroupIndex(rebalance)
    assert index.member_ids == ["a", "b"]
    assert index.topics == ["x", "y"]
    assert index.offsets == [0, 2, 5]
    assert index.lags == [5, 6, 7, 8, 9]  # y-1 is offsets[1] + 1 = 3
    assert index.topic_of == [0, 0, 1, 1, 1]
    assert index.subscribers == [[0, 1], [1]]
