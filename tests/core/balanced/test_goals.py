"""The bars' quick checks: the lag-aware floor's docstring example, and its bound."""

from __future__ import annotations

from hypothesis import given, settings

from lagassign.core.model import Member, Rebalance, make_rebalance
from lagassign.core.strategies import lag_aware
from lagassign.core.strategies.balanced.goals import lag_aware_floor
from lagassign.core.strategies.balanced.group_index import GroupIndex
from tests.strategies import rebalances


def largest_member_lag(rebalance: Rebalance) -> int:
    answer = lag_aware.assign(rebalance)
    return max(
        sum(rebalance.lags[t][p] for t, ps in topics.items() for p in ps)
        for topics in answer.values()
    )


def test_two_full_rounds_and_the_first_partition_give_a_floor_of_10() -> None:
    members = [Member("a", ("t",)), Member("b", ("t",))]
    rebalance = make_rebalance(members, {"t": 4}, {"t": [9, 7, 4, 1]})
    assert lag_aware_floor(GroupIndex(rebalance)) == 10
    assert largest_member_lag(rebalance) >= 10


@settings(max_examples=100)
@given(rebalances())
def test_the_floor_never_exceeds_what_lag_aware_gives(rebalance: Rebalance) -> None:
    assert lag_aware_floor(GroupIndex(rebalance)) <= largest_member_lag(rebalance)
