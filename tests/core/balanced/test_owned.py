"""What a member keeps of what it owned: the docstring's example."""

from __future__ import annotations

from collections import Counter

from lagassign.core.model import Member, make_rebalance
from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.owned import keep_owned
from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.quotas import count_targets


def kept_by_a(other_lag: int) -> list[int]:
    """a owned t [90, 50, 40, 10] of five with a target of 3; b reads t and u (one partition)."""
    members = [
        Member("a", ("t",), owned={"t": (0, 1, 2, 3)}, generation=1),
        Member("b", ("t", "u")),
    ]
    rebalance = make_rebalance(
        members, {"t": 5, "u": 1}, {"t": [90, 50, 40, 10, 0], "u": [other_lag]}
    )
    index = GroupIndex(rebalance)
    previous = index.previous_owner_array().tolist()
    owned = [Counter(previous[index.offsets[t] : index.offsets[t + 1]]) for t in range(2)]
    targets = count_targets(index, owned)
    assert targets.target(0, 0) == 3
    placement = Placement(index, previous)
    keep_owned(placement, targets, owned)
    return sorted(index.lags[x] for x in placement.held[0])


def test_with_a_mean_of_100_a_member_owning_190_gives_up_the_90() -> None:
    assert kept_by_a(other_lag=10) == [10, 40, 50]  # mean (190 + 10) / 2 = 100


def test_with_owned_lag_below_the_mean_a_member_gives_up_its_smallest() -> None:
    assert kept_by_a(other_lag=210) == [40, 50, 90]  # mean 200
