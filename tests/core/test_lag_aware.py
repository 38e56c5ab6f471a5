"""Lag-aware: the KIP's example, the seed's weakness, the ladder, the rule replayed."""

from __future__ import annotations

from hypothesis import given

from lagassign.core.model import Assignment, Member, Rebalance, make_rebalance
from lagassign.core.stats import assignment_stats
from lagassign.core.strategies.range import java_order
from tests.core.checking import assign_checked
from tests.strategies import rebalances


def answer(rebalance: Rebalance) -> Assignment:
    return assign_checked("lag-aware", rebalance).assignment


def member_lag(strategy: str, rebalance: Rebalance) -> dict[str, int]:
    return assignment_stats(rebalance, assign_checked(strategy, rebalance)).member_lag


def replayed(rebalance: Rebalance) -> Assignment:
    """The seed's rule taken literally: a full minimum over the subscribers for every partition."""
    out: Assignment = {m.member_id: {} for m in rebalance.members}
    for topic, members in rebalance.subscribers().items():
        lags = rebalance.lags[topic]
        count = dict.fromkeys(members, 0)
        lag = dict.fromkeys(members, 0)
        for p in sorted(range(rebalance.partitions[topic]), key=lambda p: (-lags[p], p)):
            chosen = min(members, key=lambda m: (count[m], lag[m], java_order(m)))
            out[chosen].setdefault(topic, []).append(p)
            count[chosen] += 1
            lag[chosen] += lags[p]
    return {m: {t: sorted(ps) for t, ps in topics.items()} for m, topics in out.items()}


def test_the_kip_example_balances_lag_where_range_does_not() -> None:
    rebalance = make_rebalance(
        [Member("C0", ("t0",)), Member("C1", ("t0",))],
        {"t0": 3},
        {"t0": [100_000, 60_000, 50_000]},
    )
    assert answer(rebalance) == {"C0": {"t0": [0]}, "C1": {"t0": [1, 2]}}
    assert member_lag("lag-aware", rebalance) == {"C0": 100_000, "C1": 110_000}
    assert member_lag("range", rebalance) == {"C0": 160_000, "C1": 50_000}


def test_the_seed_hands_one_member_the_heaviest_partition_of_every_topic() -> None:
    topics = [f"t{i}" for i in range(10)]
    rebalance = make_rebalance(
        [Member("C0", tuple(topics)), Member("C1", tuple(topics))],
        dict.fromkeys(topics, 2),
        {t: [100, 1] for t in topics},
    )
    assert member_lag("lag-aware", rebalance) == {"C0": 1_000, "C1": 10}


def test_a_topic_without_partitions_leaves_every_member_empty() -> None:
    rebalance = make_rebalance([Member("C0", ("t0",)), Member("C1", ("t0",))], {"t0": 0})
    assert answer(rebalance) == {"C0": {}, "C1": {}}


def test_one_member_gets_every_partition() -> None:
    rebalance = make_rebalance([Member("C0", ("t0",))], {"t0": 3}, {"t0": [5, 9, 1]})
    assert answer(rebalance) == {"C0": {"t0": [0, 1, 2]}}


def test_more_members_than_partitions_gives_the_heaviest_to_the_smallest_ids() -> None:
    rebalance = make_rebalance(
        [Member(f"C{i}", ("t0",)) for i in range(4)], {"t0": 2}, {"t0": [3, 7]}
    )
    assert answer(rebalance) == {"C0": {"t0": [1]}, "C1": {"t0": [0]}, "C2": {}, "C3": {}}


def test_equal_lags_go_in_partition_order_and_counts_come_before_lag() -> None:
    rebalance = make_rebalance(
        [Member("C0", ("t0",)), Member("C1", ("t0",))], {"t0": 4}, {"t0": [0, 0, 0, 1000]}
    )
    # t0p3 -> C0; p0 -> C1 (fewer partitions); p1 -> C1 (less lag); p2 -> C0 (fewer partitions)
    assert answer(rebalance) == {"C0": {"t0": [2, 3]}, "C1": {"t0": [0, 1]}}


def test_different_subscriptions_balance_each_topic_over_its_own_subscribers() -> None:
    rebalance = make_rebalance(
        [Member("C0", ("a",)), Member("C1", ("a", "b")), Member("C2", ("b",))],
        {"a": 2, "b": 3},
        {"a": [10, 20], "b": [5, 50, 5]},
    )
    assert answer(rebalance) == {
        "C0": {"a": [1]},
        "C1": {"a": [0], "b": [1]},
        "C2": {"b": [0, 2]},
    }


def test_static_members_are_ordered_by_member_id_like_the_seed() -> None:
    rebalance = make_rebalance(
        [Member("C1", ("t",), group_instance_id="a"), Member("C0", ("t",), group_instance_id="b")],
        {"t": 1},
        {"t": [9]},
    )
    assert answer(rebalance) == {"C0": {"t": [0]}, "C1": {}}


@given(rebalances(max_members=6, max_topics=4, max_partitions=10, max_lag=20))
def test_the_answer_is_the_seed_rule_replayed(rebalance: Rebalance) -> None:
    assert answer(rebalance) == replayed(rebalance)
