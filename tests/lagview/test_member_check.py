"""The member check of /assign: a request naming group A with group B's members."""

from __future__ import annotations

import pytest

from lagassign.errors import WrongGroup
from lagassign.lagview.member_check import check_members
from tests.service.group_builders import snapshot_of

ORDERS = snapshot_of("orders", {"m-1": {"t": [0]}, "m-2": {"t": [1]}}, {"t": [5, 5]})
AUDIT = snapshot_of("audit", {"a-1": {"t": [0, 1]}}, {"t": [5, 5]})
VIEW = {"orders": ORDERS, "audit": AUDIT}


def test_members_of_another_group_and_none_of_the_named_one_are_refused() -> None:
    with pytest.raises(WrongGroup) as refused:
        check_members("order", ["m-1", "m-2", "m-new"], VIEW)
    error = refused.value
    assert (error.status, error.code) == (400, "wrong_group")
    assert error.message.startswith("the members belong to group 'orders', not 'order': ")
    assert error.message.endswith("(members m-1, m-2)")
    assert error.details == {
        "group_id": "order",
        "member_groups": {"orders": ["m-1", "m-2"]},
        "known_members_of_group": 0,
    }


def test_a_described_group_whose_members_are_anothers_is_refused_too() -> None:
    with pytest.raises(WrongGroup, match=r"belong to group 'audit', not 'orders'.*\(members a-1\)"):
        check_members("orders", ["a-1"], VIEW)


def test_one_member_of_the_named_group_is_enough() -> None:
    check_members("orders", ["m-1", "a-1", "m-new"], VIEW)


def test_no_check_without_knowledge() -> None:
    # A new group's first rebalance: nobody knows its members yet.
    check_members("new-group", ["x-1", "x-2"], VIEW)
    # A sidecar that has just restarted knows no group yet.
    check_members("orders", ["m-1"], {})
    # Every member of a described group restarted at once: new ids nobody knows.
    check_members("orders", ["m-3", "m-4"], VIEW)
