"""``lagassign._native.by_lag_order`` against NumPy's stable sort of the negated lags.

Each topic's partitions come largest lag first, equal lags by the lower partition
number, exactly as ``(-lags).argsort(kind="stable")`` per topic gives them. Lags far
apart (0 beside 2**63 - 1) cannot be packed with their position and take the compiled
function's other sort; the order must not change.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lagassign._native import by_lag_order


def by_numpy(lags: list[int], starts: list[int]) -> list[int]:
    array = np.array(lags, dtype=np.int64)
    order: list[int] = []
    for start, end in pairwise(starts):
        order.extend(((-array[start:end]).argsort(kind="stable") + start).tolist())
    return order


@st.composite
def topics(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    far_apart = draw(st.booleans())
    lag = st.sampled_from([0, 1, 2**63 - 1]) if far_apart else st.integers(0, 30)
    sizes = draw(st.lists(st.integers(0, 40), min_size=1, max_size=6))
    starts = [0]
    for size in sizes:
        starts.append(starts[-1] + size)
    lags = draw(st.lists(lag, min_size=starts[-1], max_size=starts[-1]))
    return lags, starts


def call(lags: list[int], starts: list[int]) -> list[int]:
    order: list[int] = by_lag_order(np.array(lags, dtype=np.int64), starts).tolist()
    return order


@given(topics())
def test_each_topic_largest_lag_first_and_equal_lags_by_partition(
    topic_lags: tuple[list[int], list[int]],
) -> None:
    lags, starts = topic_lags
    assert call(lags, starts) == by_numpy(lags, starts)


def test_starts_that_do_not_cover_the_lags_and_lags_not_int64_are_refused() -> None:
    lags = np.array([5, 3, 4], dtype=np.int64)
    with pytest.raises(ValueError, match="topic_starts ends at 2 but lags has 3 partitions"):
        by_lag_order(lags, [0, 2])
    with pytest.raises(ValueError, match="topic_starts is not ascending"):
        by_lag_order(lags, [0, 3, 1, 3])
    with pytest.raises(TypeError, match="'list' object"):
        by_lag_order([5, 3, 4], [0, 3])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="int32"):
        by_lag_order(lags.astype(np.int32), [0, 3])
