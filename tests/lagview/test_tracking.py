"""Which groups are tracked: named, matched by the regex, registered on demand."""

from __future__ import annotations

import pytest

from lagassign.lagview.errors import InvalidLagViewSettings
from lagassign.lagview.tracking import GroupTracking


def test_named_regex_and_on_demand_merge_sorted() -> None:
    tracking = GroupTracking(["orders"], r"pay-.*")
    tracking.register("late")
    assert tracking.select(["pay-eu", "payroll", "orders", "other"]) == ["late", "orders", "pay-eu"]


def test_named_groups_are_tracked_even_when_the_cluster_does_not_list_them() -> None:
    assert GroupTracking(["a"]).select([]) == ["a"]


def test_regex_must_match_the_whole_id() -> None:
    tracking = GroupTracking(pattern="pay")
    assert tracking.select(["pay", "payments", "repay"]) == ["pay"]


def test_nonsense_is_refused() -> None:
    with pytest.raises(InvalidLagViewSettings, match="not a regex"):
        GroupTracking(pattern="(")
    with pytest.raises(InvalidLagViewSettings, match="empty"):
        GroupTracking([""])
    with pytest.raises(InvalidLagViewSettings, match="empty"):
        GroupTracking().register("")
