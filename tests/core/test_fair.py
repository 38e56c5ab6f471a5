"""Fair (KIP-49): the KIP's four consumers and five topics, the ladder, the rule replayed."""

from __future__ import annotations

from hypothesis import given

from lagassign.core.model import Assignment, Member, Rebalance, make_rebalance
from tests.core.checking import assign_checked
from tests.strategies import rebalances


def answer(rebalance: Rebalance) -> Assignment:
    return assign_checked("fair", rebalance).assignment


def counts(assignment: Assignment) -> dict[str, int]:
    return {m: sum(map(len, topics.values())) for m, topics in assignment.items()}


def replayed(rebalance: Rebalance) -> Assignment:
    """KIP-49's rule taken literally: a full minimum over the eligible members per partition."""
    subscribers = rebalance.subscribers()
    out: Assignment = {m.member_id: {} for m in rebalance.members}
    load = {m.member_id: 0 for m in rebalance.members}
    order = sorted(subscribers, key=lambda t: (len(subscribers[t]), -rebalance.partitions[t], t))
    for topic in order:
        for p in range(rebalance.partitions[topic]):
            chosen = min(subscribers[topic], key=lambda m: (load[m], m))
            out[chosen].setdefault(topic, []).append(p)
            load[chosen] += 1
    return out


def test_the_kip_example_gives_every_consumer_two_partitions() -> None:
    everything = ("T1", "T2", "T3", "T4", "T5")
    rebalance = make_rebalance(
        [
            Member("C1", everything),
            Member("C2", ("T1", "T3", "T5")),
            Member("C3", ("T1", "T3", "T5")),
            Member("C4", everything),
        ],
        {"T1": 2, "T2": 1, "T3": 2, "T4": 1, "T5": 2},
    )
    assert answer(rebalance) == {
        "C1": {"T2": [0], "T3": [0]},
        "C2": {"T1": [0], "T3": [1]},
        "C3": {"T1": [1], "T5": [0]},
        "C4": {"T4": [0], "T5": [1]},
    }
    range_counts = counts(assign_checked("range", rebalance).assignment)
    assert range_counts == {"C1": 5, "C2": 3, "C3": 0, "C4": 0}


def test_a_topic_without_partitions_leaves_every_member_empty() -> None:
    rebalance = make_rebalance([Member("C0", ("t0",)), Member("C1", ("t0",))], {"t0": 0})
    assert answer(rebalance) == {"C0": {}, "C1": {}}


def test_one_member_gets_every_partition() -> None:
    rebalance = make_rebalance([Member("C0", ("t0", "t1"))], {"t0": 2, "t1": 1})
    assert answer(rebalance) == {"C0": {"t0": [0, 1], "t1": [0]}}


def test_more_members_than_partitions_gives_one_each_by_member_id() -> None:
    rebalance = make_rebalance(
        [Member(f"C{i}", ("t0", "t1")) for i in range(4)], {"t0": 2, "t1": 1}
    )
    assert answer(rebalance) == {"C0": {"t0": [0]}, "C1": {"t0": [1]}, "C2": {"t1": [0]}, "C3": {}}


def test_topics_with_fewer_subscribers_then_more_partitions_go_first() -> None:
    # b has one subscriber and goes first; then c (3 partitions) before a (1 partition).
    rebalance = make_rebalance(
        [Member("C0", ("a", "b", "c")), Member("C1", ("a", "c"))], {"a": 1, "b": 2, "c": 3}
    )
    assert answer(rebalance) == {"C0": {"b": [0, 1], "c": [2]}, "C1": {"a": [0], "c": [0, 1]}}


def test_static_members_change_nothing() -> None:
    plain = [Member("C0", ("t",)), Member("C1", ("t",))]
    static = [
        Member("C0", ("t",), group_instance_id="z"),
        Member("C1", ("t",), group_instance_id="a"),
    ]
    assert answer(make_rebalance(static, {"t": 3})) == answer(make_rebalance(plain, {"t": 3}))


@given(rebalances(max_members=8, max_topics=5, max_partitions=10))
def test_the_answer_is_the_kip_rule_replayed(rebalance: Rebalance) -> None:
    assert answer(rebalance) == replayed(rebalance)


@given(rebalances(identical=True))
def test_identical_subscriptions_give_counts_within_one(rebalance: Rebalance) -> None:
    got = counts(answer(rebalance)).values()
    assert max(got) - min(got) <= 1
