"""Flat numbering: the docstring's rule, partition p of topic t is offsets[t] + p."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.core.model import Member, make_rebalance
from lagassign.core.stats import lag_totals
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


@pytest.mark.parametrize(
    ("lags", "dtype"),
    [
        ([5, 6, 7], np.int64),
        ([2**62, 2**62 - 1, 0], np.int64),  # the sum is 2**63 - 1: still fits
        ([2**62, 2**62, 0], object),  # the sum is 2**63: Python ints
        ([2**63 - 1, 1, 0], object),
        ([2**64, 0, 1], object),  # one lag beyond int64 (the model allows any int)
        ([0, 0, 0], np.int64),
    ],
)
def test_lags_are_int64_while_the_group_total_fits_and_python_ints_beyond(
    lags: list[int], dtype: type
) -> None:
    rebalance = make_rebalance([Member("a", ("t",))], {"t": 3}, {"t": lags})
    index = GroupIndex(rebalance)
    assert index.lag_array.dtype == dtype
    assert index.lag_array.tolist() == lags
    assert all(type(lag) is int for lag in index.lags)
    assert index.lags == lags
    # the totals the index left for lower_bound match those read off the lists
    again = make_rebalance([Member("a", ("t",))], {"t": 3}, {"t": lags})
    assert "lag_totals" not in again.derived
    assert lag_totals(rebalance) == lag_totals(again) == (sum(lags), max(lags))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from([0, 1, 7, 7, 2**40, 2**62 // 3, 2**63 - 1]), max_size=9),
        min_size=1,
        max_size=4,
    )
)
def test_partitions_by_lag_are_those_of_a_stable_sort_per_topic(lags: list[list[int]]) -> None:
    # topics of equal and unequal sizes, equal lags, lags near int64 and group totals
    # beyond it (Python ints)
    topics = {f"t{t}": len(values) for t, values in enumerate(lags)}
    rebalance = make_rebalance(
        [Member("a", tuple(topics))], topics, {f"t{t}": v for t, v in enumerate(lags)}
    )
    index = GroupIndex(rebalance)
    expected = []
    for t, values in enumerate(lags):
        order = sorted(range(len(values)), key=lambda p: (-values[p], p))
        expected.append([index.offsets[t] + p for p in order])
    assert [parts.tolist() for parts in index.by_lag_arrays()] == expected
    assert all(parts.dtype == np.int64 for parts in index.by_lag_arrays())
