"""Owned partitions checked over all members at once: the same members and the same errors
as the rule written one partition at a time."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.core.errors import InvalidRebalance
from lagassign.core.model import Member, make_rebalance
from lagassign.core.owned import refuse_out_of_range

PARTITIONS = {"a": 3, "b": 2, "c": 4, "unsubscribed": 2}


@st.composite
def owning_members(draw: st.DrawFn) -> list[Member]:
    """Members owning maps in any order, with duplicates, empty lists, unknown topics and
    ids out of range."""
    members = []
    for i in range(draw(st.integers(1, 4))):
        owned = {}
        for topic in draw(st.lists(st.sampled_from([*PARTITIONS, "gone"]), unique=True)):
            owned[topic] = tuple(draw(st.lists(st.integers(-1, 5), max_size=5)))
        topics = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, unique=True))
        members.append(Member(f"m{i}", tuple(topics), owned=owned))
    return members


def canonical_by_loops(members: list[Member]) -> dict[str, dict[str, tuple[int, ...]]]:
    """The rule one partition at a time (or the first out-of-range id, found one at a time)."""
    refuse_out_of_range([m.owned for m in members], PARTITIONS)
    subscribed = {t for m in members for t in m.topics}
    return {
        m.member_id: {
            t: tuple(sorted(set(ids)))
            for t, ids in sorted(m.owned.items())
            if t in subscribed and ids
        }
        for m in members
    }


@settings(max_examples=300, deadline=None)
@given(owning_members())
def test_owned_maps_come_out_canonical_or_the_first_bad_id_is_named(
    members: list[Member],
) -> None:
    expected_message: str | None = None
    try:
        expected = canonical_by_loops(members)
    except InvalidRebalance as problem:
        expected_message = problem.message
    if expected_message is not None:
        with pytest.raises(InvalidRebalance) as refused:
            make_rebalance(members, PARTITIONS)
        assert refused.value.message == expected_message
        return
    rebalance = make_rebalance(members, PARTITIONS)
    got = {m.member_id: {t: tuple(ids) for t, ids in m.owned.items()} for m in rebalance.members}
    assert got == expected
    for m in rebalance.members:
        assert list(m.owned) == sorted(m.owned)


def test_a_map_sent_in_order_is_kept_as_sent() -> None:
    owned = {"a": [0, 2], "b": [1]}
    rebalance = make_rebalance([Member("m", ("a", "b"), owned=owned)], {"a": 3, "b": 2})
    assert rebalance.members[0].owned is owned
