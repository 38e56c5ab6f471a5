"""Each strategy's edge-case ladder: each member's topics, the partition counts, and the
answer the strategy must give, rung by rung."""

from __future__ import annotations

import pytest

from lagassign.core.model import Assignment
from tests.core.checking import EVERY_STRATEGY_LADDER, Subscriptions, assign_checked, subscribed

Ladder = dict[str, tuple[Subscriptions, dict[str, int], Assignment]]

RANGE: Ladder = {
    **EVERY_STRATEGY_LADDER,
    "the javadoc example gives the first member the extra partition of every topic": (
        {"C0": ("t0", "t1"), "C1": ("t0", "t1")},
        {"t0": 3, "t1": 3},
        {"C0": {"t0": [0, 1], "t1": [0, 1]}, "C1": {"t0": [2], "t1": [2]}},
    ),
    "more members than partitions leaves the last members empty": (
        {f"C{i}": ("t0",) for i in range(4)},
        {"t0": 2},
        {"C0": {"t0": [0]}, "C1": {"t0": [1]}, "C2": {}, "C3": {}},
    ),
    "several topics are ranged independently": (
        {"C0": ("t0", "t1", "t2"), "C1": ("t0", "t1", "t2")},
        {"t0": 1, "t1": 4, "t2": 5},
        {"C0": {"t0": [0], "t1": [0, 1], "t2": [0, 1, 2]}, "C1": {"t1": [2, 3], "t2": [3, 4]}},
    ),
    "different subscriptions range each topic over its own subscribers": (
        {"C0": ("t0",), "C1": ("t0", "t1"), "C2": ("t1",)},
        {"t0": 3, "t1": 3},
        {"C0": {"t0": [0, 1]}, "C1": {"t0": [2], "t1": [0, 1]}, "C2": {"t1": [2]}},
    ),
}


ROUNDROBIN: Ladder = {
    **EVERY_STRATEGY_LADDER,
    "different subscriptions skip members and can leave them behind": (
        {"C0": ("t0",), "C1": ("t0", "t1"), "C2": ("t0", "t1", "t2")},
        {"t0": 1, "t1": 2, "t2": 3},
        {"C0": {"t0": [0]}, "C1": {"t1": [0]}, "C2": {"t1": [1], "t2": [0, 1, 2]}},
    ),
    "identical subscriptions deal partitions alternately": (
        {"C0": ("t0", "t1"), "C1": ("t0", "t1")},
        {"t0": 3, "t1": 3},
        {"C0": {"t0": [0, 2], "t1": [1]}, "C1": {"t0": [1], "t1": [0, 2]}},
    ),
    "more members than partitions continues the ring across topics": (
        {f"C{i}": ("t0", "t1") for i in range(5)},
        {"t0": 2, "t1": 2},
        {"C0": {"t0": [0]}, "C1": {"t0": [1]}, "C2": {"t1": [0]}, "C3": {"t1": [1]}, "C4": {}},
    ),
    "an empty topic does not move the ring": (
        {"C0": ("a", "b", "c"), "C1": ("a", "b", "c")},
        {"a": 1, "b": 0, "c": 1},
        {"C0": {"a": [0]}, "C1": {"c": [0]}},
    ),
}


LADDERS: dict[str, Ladder] = {"range": RANGE, "roundrobin": ROUNDROBIN}


@pytest.mark.parametrize(
    ("strategy", "topics", "partitions", "expected"),
    [
        pytest.param(strategy, *rung, id=f"{strategy}: {name}")
        for strategy, ladder in LADDERS.items()
        for name, rung in ladder.items()
    ],
)
def test_every_rung_of_the_ladder(
    strategy: str, topics: Subscriptions, partitions: dict[str, int], expected: Assignment
) -> None:
    assert assign_checked(strategy, subscribed(topics, partitions)).assignment == expected
