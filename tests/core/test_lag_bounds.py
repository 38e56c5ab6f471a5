"""Lags at Kafka's 64-bit bound: every strategy answers, the statistics stay finite.

A request's lags are refused beyond ``INT64_MAX`` at the wire (lagassign.limits);
up to it, every strategy and the statistics must compute without OverflowError
and give a valid answer, whatever the sums of many such lags become.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.core.model import Member, Rebalance, make_rebalance
from lagassign.core.stats import assignment_stats
from lagassign.core.strategies import STRATEGIES
from lagassign.limits import INT64_MAX
from tests.core.checking import assign_checked
from tests.strategies import rebalances

NEAR_BOUND = st.one_of(st.just(INT64_MAX), st.integers(INT64_MAX - 1_000, INT64_MAX))


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@settings(max_examples=30, deadline=None)
@given(rebalance=rebalances(max_lag=INT64_MAX, max_partitions=30))
def test_lags_up_to_int64_max_give_valid_answers_and_finite_stats(
    strategy: str, rebalance: Rebalance
) -> None:
    result = assign_checked(strategy, rebalance, reorderings=1)
    stats = assignment_stats(rebalance, result)
    for value in (stats.mean_lag, stats.imbalance, stats.lower_bound):
        assert math.isfinite(value)
    assert stats.imbalance >= 1.0 or stats.max_lag == 0


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@settings(max_examples=10, deadline=None)
@given(lag=NEAR_BOUND, partitions=st.integers(1, 200), members=st.integers(1, 7))
def test_every_partition_at_the_bound(
    strategy: str, lag: int, partitions: int, members: int
) -> None:
    rebalance = make_rebalance(
        [Member(member_id=f"m{i}", topics=("t",)) for i in range(members)],
        {"t": partitions},
        {"t": [lag] * partitions},
    )
    result = assign_checked(strategy, rebalance, reorderings=1)
    stats = assignment_stats(rebalance, result)
    assert stats.max_lag <= lag * partitions
    assert math.isfinite(stats.imbalance)
    assert math.isfinite(stats.lower_bound)
