"""Groups tracked on demand are bounded: idle ones expire, past the cap the oldest go."""

from __future__ import annotations

import asyncio

import pytest

from lagassign.lagview.errors import InvalidLagViewSettings
from lagassign.lagview.tracking import GroupTracking
from lagassign.lagview.view import LagView


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_past_the_cap_the_least_recently_used_group_goes_first() -> None:
    tracking = GroupTracking(["named"], max_on_demand=3, clock=Clock())
    for group in ("a", "b", "c"):
        assert tracking.register(group) == []
    assert tracking.register("a") == []  # used again: now the most recent
    assert tracking.register("d") == ["b"]
    assert tracking.register("e") == ["c"]
    assert tracking.select([]) == ["a", "d", "e", "named"]
    assert tracking.evicted_total == 2


def test_idle_groups_expire_at_the_next_select_but_named_and_matched_ones_stay() -> None:
    clock = Clock()
    tracking = GroupTracking(["named"], r"pay-.*", idle_s=60, clock=clock)
    tracking.register("old")
    clock.now += 30
    tracking.register("recent")
    clock.now += 31
    assert tracking.select(["pay-eu", "other"]) == ["named", "pay-eu", "recent"]
    assert tracking.evicted_total == 1
    clock.now += 60
    assert tracking.select(["pay-eu"]) == ["named", "pay-eu"]
    assert tracking.evicted_total == 2


def test_4000_groups_keep_the_tracking_within_the_cap() -> None:
    tracking = GroupTracking(max_on_demand=100, clock=Clock())
    for i in range(4_000):
        tracking.register(f"g{i}")
    assert len(tracking.select([])) == 100
    assert tracking.evicted_total == 3_900


def test_nonsense_caps_are_refused() -> None:
    with pytest.raises(InvalidLagViewSettings):
        GroupTracking(max_on_demand=0)
    with pytest.raises(InvalidLagViewSettings):
        GroupTracking(idle_s=0)


def test_the_lag_view_counts_evictions_and_forgets_the_evicted_groups_snapshots() -> None:
    view = LagView("127.0.0.1:9", max_on_demand_groups=2)  # never started: no Kafka needed

    async def track_all() -> None:
        try:
            for group in ("a", "b", "c", "d"):
                view.track(group)
            # Tracking is handed to the view's loop, in order: done once this has run there.
            await view.own_loop.run(asyncio.sleep(0))
        finally:
            await view.stop()

    asyncio.run(track_all())
    assert view.tracked_groups_evicted_total == 2
    assert view.store.tracking.select([]) == ["c", "d"]
