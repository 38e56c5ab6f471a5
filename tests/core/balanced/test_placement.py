"""Placements built in bulk against the same built one partition at a time."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.core.model import Assignment
from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.placement import Placement
from tests.strategies import plain_groups


@st.composite
def dealt(draw: st.DrawFn) -> tuple[GroupIndex, list[int], list[int]]:
    """A group, and an order in which its partitions go to members."""
    index = GroupIndex(
        draw(plain_groups(max_members=5, max_topics=4, min_partitions=0, max_partitions=6))
    )
    size = len(index.member_ids)
    parts = draw(st.permutations(range(index.partition_count)))
    owners = [draw(st.integers(0, size - 1)) for _ in parts]
    return index, list(parts), owners


def reference_assignment(placement: Placement) -> Assignment:
    index = placement.index
    answer: Assignment = {member_id: {} for member_id in index.member_ids}
    for x, m in enumerate(placement.owner.tolist()):
        topic = index.topics[index.topic_of[x]]
        answer[index.member_ids[m]].setdefault(topic, []).append(
            x - index.offsets[index.topic_of[x]]
        )
    return answer


@settings(max_examples=200, deadline=None)
@given(dealt())
def test_take_is_give_one_by_one_and_the_answer_lists_every_partition_once(
    case: tuple[GroupIndex, list[int], list[int]],
) -> None:
    index, parts, owners = case
    one_by_one = Placement(index)
    for x, m in zip(parts, owners, strict=True):
        one_by_one.give(x, m)
    bulk = Placement(index)
    bulk.take(np.array(parts, dtype=np.int64), np.array(owners, dtype=np.int64))
    assert (bulk.owner.tolist(), bulk.held, bulk.load) == (
        one_by_one.owner.tolist(),
        one_by_one.held,
        one_by_one.load,
    )
    assert bulk.assignment() == reference_assignment(one_by_one)
