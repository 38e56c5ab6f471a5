"""Round robin: Kafka's javadoc examples and a step-by-step replay (its edge-case ladder:
``test_ladders.py``)."""

from __future__ import annotations

from hypothesis import given

from lagassign.core.model import Assignment, Member, Rebalance, make_rebalance
from lagassign.core.strategies.range import java_order, kafka_member_order
from tests.core.checking import assign_checked
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
