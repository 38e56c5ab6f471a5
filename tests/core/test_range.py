"""Range: the RangeAssignor static-membership example (its edge-case ladder:
``test_ladders.py``)."""

from __future__ import annotations

from hypothesis import given

from lagassign.core.model import Assignment, Member, Rebalance, make_rebalance
from lagassign.core.strategies.range import java_order, kafka_member_order
from tests.core.checking import assign_checked
from tests.strategies import rebalances


def answer(rebalance: Rebalance) -> Assignment:
    return assign_checked("range", rebalance).assignment


def test_static_members_keep_their_ranges_when_member_ids_change() -> None:
    # RangeAssignor's javadoc: after a rolling bounce C0 -> C3 and C1 -> C2.
    static = make_rebalance(
        [
            Member("C3", ("t0", "t1"), group_instance_id="I0"),
            Member("C2", ("t0", "t1"), group_instance_id="I1"),
        ],
        {"t0": 3, "t1": 3},
    )
    assert answer(static) == {
        "C3": {"t0": [0, 1], "t1": [0, 1]},
        "C2": {"t0": [2], "t1": [2]},
    }
    dynamic = make_rebalance(
        [Member("C3", ("t0", "t1")), Member("C2", ("t0", "t1"))], {"t0": 3, "t1": 3}
    )
    assert answer(dynamic) == {
        "C2": {"t0": [0, 1], "t1": [0, 1]},
        "C3": {"t0": [2], "t1": [2]},
    }


def test_static_members_come_first_by_instance_id_then_dynamic_by_member_id() -> None:
    rebalance = make_rebalance(
        [
            Member("a-dynamic", ("t",)),
            Member("b-static", ("t",), group_instance_id="z"),
            Member("c-static", ("t",), group_instance_id="y"),
            Member("0-dynamic", ("t",)),
        ],
        {"t": 4},
    )
    order = [m.member_id for m in kafka_member_order(rebalance.members)]
    assert order == ["c-static", "b-static", "0-dynamic", "a-dynamic"]
    assert answer(rebalance) == {
        "c-static": {"t": [0]},
        "b-static": {"t": [1]},
        "0-dynamic": {"t": [2]},
        "a-dynamic": {"t": [3]},
    }


def test_member_ids_are_compared_as_java_compares_strings() -> None:
    # U+FF21 sorts before U+1F600 in Python, after its UTF-16 surrogates in Java.
    fullwidth, emoji = "\uff21", "\U0001f600"
    assert sorted([fullwidth, emoji]) == [fullwidth, emoji]
    assert sorted([fullwidth, emoji], key=java_order) == [emoji, fullwidth]
    rebalance = make_rebalance([Member(fullwidth, ("t",)), Member(emoji, ("t",))], {"t": 3})
    assert answer(rebalance) == {emoji: {"t": [0, 1]}, fullwidth: {"t": [2]}}


@given(rebalances())
def test_every_topic_is_cut_into_consecutive_ranges_in_member_order(rebalance: Rebalance) -> None:
    assignment = answer(rebalance)
    order = kafka_member_order(rebalance.members)
    for topic, count in rebalance.partitions.items():
        members = [m.member_id for m in order if topic in m.topics]
        got = [p for member_id in members for p in assignment[member_id].get(topic, [])]
        assert got == list(range(count))
        sizes = [len(assignment[member_id].get(topic, [])) for member_id in members]
        assert sizes == sorted(sizes, reverse=True)
        assert max(sizes) - min(sizes) <= 1
