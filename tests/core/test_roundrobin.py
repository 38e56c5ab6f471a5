"""Round robin: Kafka's javadoc examples, the edge-case ladder, a step-by-step replay."""

from __future__ import annotations

import pytest
from hypothesis import given

from lagassign.core.model import Assignment, Member, Rebalance, make_rebalance
from lagassign.core.strategies.range import java_order, kafka_member_order
from tests.core.checking import EVERY_STRATEGY_LADDER, Subscriptions, assign_checked, subscribed
from tests.strategies import rebalances


def answer(rebalance: Rebalance) -> Assignment:
    return assign_checked("roundrobin", rebalance).assignment


def replayed(rebalance: Rebalance) -> Assignment:
    """Kafka's loop taken literally: one partition at a time around the member ring."""
    ring = kafka_member_order(rebalance.members)
    out: Assignment = {m.member_id: {} for m in ring}
    at = 0
    for topic in sorted(rebalance.partitions, key=java_order):
        for p in range(rebalance.partitions[topic]):
            while topic not in ring[at % len(ring)].topics:
                at += 1
            out[ring[at % len(ring)].member_id].setdefault(topic, []).append(p)
            at += 1
    return out


# The edge-case ladder: each member's topics, the partition counts, the answer.
LADDER: dict[str, tuple[Subscriptions, dict[str, int], Assignment]] = {
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


@pytest.mark.parametrize(("topics", "partitions", "expected"), LADDER.values(), ids=list(LADDER))
def test_the_edge_case_ladder(
    topics: Subscriptions, partitions: dict[str, int], expected: Assignment
) -> None:
    assert answer(subscribed(topics, partitions)) == expected


def test_static_members_deal_in_instance_id_order_whatever_their_member_ids() -> None:
    # RoundRobinAssignor's javadoc: after a bounce C0 -> C5, C1 -> C3, C2 -> C4.
    rebalance = make_rebalance(
        [
            Member("C5", ("t0", "t1"), group_instance_id="I0"),
            Member("C3", ("t0", "t1"), group_instance_id="I1"),
            Member("C4", ("t0", "t1"), group_instance_id="I2"),
        ],
        {"t0": 3, "t1": 3},
    )
    assert answer(rebalance) == {
        "C5": {"t0": [0], "t1": [0]},
        "C3": {"t0": [1], "t1": [1]},
        "C4": {"t0": [2], "t1": [2]},
    }


@given(rebalances(max_members=10, max_topics=6, max_partitions=15))
def test_the_answer_is_kafkas_loop_replayed_step_by_step(rebalance: Rebalance) -> None:
    assignment = answer(rebalance)
    expected = replayed(rebalance)
    assert assignment == expected


@given(rebalances(identical=True))
def test_identical_subscriptions_give_counts_within_one(rebalance: Rebalance) -> None:
    counts = [sum(map(len, topics.values())) for topics in answer(rebalance).values()]
    assert max(counts) - min(counts) <= 1
