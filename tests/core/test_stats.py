"""Quality statistics: the response example of docs/http-api.md and the edge cases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from lagassign.core.model import AssignmentResult, Member, Rebalance, make_rebalance
from lagassign.core.ownership import previous_owners
from lagassign.core.stats import assignment_stats
from lagassign.core.strategies import run_strategy
from tests.core.test_ownership import contested


def test_the_kip_example_under_lag_aware() -> None:
    rebalance = make_rebalance(
        [Member("C0", ("t0",), owned={"t0": (0, 1)}), Member("C1", ("t0",))],
        {"t0": 3},
        {"t0": [100_000, 60_000, 50_000]},
    )
    result = AssignmentResult({"C0": {"t0": [0]}, "C1": {"t0": [1, 2]}})
    stats = assignment_stats(rebalance, result)
    assert stats.member_lag == {"C0": 100_000, "C1": 110_000}
    assert stats.max_lag == 110_000
    assert stats.mean_lag == 105_000
    assert stats.imbalance == pytest.approx(110_000 / 105_000)
    assert stats.lower_bound == 105_000
    assert stats.moved == 1  # t0-1 left C0 for C1
    assert (stats.partitions, stats.members) == (3, 2)


def test_all_zero_lag_is_perfectly_balanced_and_a_hot_partition_bounds_below() -> None:
    idle = make_rebalance([Member("a", ("t",)), Member("b", ("t",))], {"t": 2})
    stats = assignment_stats(idle, AssignmentResult({"a": {"t": [0]}, "b": {"t": [1]}}))
    assert (stats.max_lag, stats.imbalance, stats.lower_bound) == (0, 1.0, 0.0)
    hot = make_rebalance([Member("a", ("t",)), Member("b", ("t",))], {"t": 2}, {"t": [90, 10]})
    stats = assignment_stats(hot, AssignmentResult({"a": {"t": [0]}, "b": {"t": [1]}}))
    assert stats.lower_bound == 90


@settings(max_examples=100, deadline=None)
@given(contested())
def test_moved_counts_what_leaves_its_rightful_previous_owner(rebalance: Rebalance) -> None:
    result = run_strategy("range", rebalance)
    owners = previous_owners(rebalance)
    expected = sum(
        1
        for member_id, topics in result.assignment.items()
        for topic, parts in topics.items()
        for p in parts
        if owners.get((topic, p), member_id) != member_id
    )
    assert assignment_stats(rebalance, result).moved == expected
