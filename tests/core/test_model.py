"""make_rebalance: the checks of a rebalance's inputs, and its canonical order."""

from __future__ import annotations

import pytest

from lagassign.core.errors import InvalidRebalance
from lagassign.core.model import Member, make_rebalance


def member(member_id: str, *topics: str, **kwargs: object) -> Member:
    return Member(member_id=member_id, topics=topics, **kwargs)  # type: ignore[arg-type]


def test_canonical_order_sorts_members_and_topics_and_drops_unsubscribed() -> None:
    rebalance = make_rebalance(
        [member("c-2", "t1", "t0"), member("c-1", "t0")],
        {"t1": 2, "t0": 1, "unused": 4},
        {"t0": [5], "unused": [1, 2, 3, 4]},
    )
    assert [m.member_id for m in rebalance.members] == ["c-1", "c-2"]
    assert rebalance.members[1].topics == ("t0", "t1")
    assert list(rebalance.partitions) == ["t0", "t1"]
    assert rebalance.lags == {"t0": [5], "t1": [0, 0]}
    assert rebalance.subscribers() == {"t0": ["c-1", "c-2"], "t1": ["c-2"]}


@pytest.mark.parametrize(
    ("members", "partitions", "lags", "message"),
    [
        ([], {"t": 1}, None, "members must not be empty"),
        ([member("a", "t"), member("a", "t")], {"t": 1}, None, "members[1].member_id"),
        ([member("a")], {"t": 1}, None, "members[0].topics must not be empty"),
        ([member("a", "x")], {"t": 1}, None, "missing from partitions"),
        ([member("a", "t")], {"t": -1}, None, "must not be negative"),
        ([member("a", "t")], {"t": 2}, {"t": [1]}, "has 1 values but the topic has 2"),
        ([member("a", "t")], {"t": 2}, {"t": [1, -1]}, "negative"),
        ([member("a", "t", owned={"t": (5,)})], {"t": 2}, None, "outside 0..1"),
        (
            [
                member("a", "t", group_instance_id="i"),
                member("b", "t", group_instance_id="i"),
            ],
            {"t": 2},
            None,
            "group_instance_id 'i' is duplicated",
        ),
    ],
)
def test_inconsistent_inputs_are_refused_with_the_field_named(
    members: list[Member],
    partitions: dict[str, int],
    lags: dict[str, list[int]] | None,
    message: str,
) -> None:
    with pytest.raises(InvalidRebalance, match=message.replace("[", r"\[").replace("]", r"\]")):
        make_rebalance(members, partitions, lags)
