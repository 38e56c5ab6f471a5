"""The time-lag floor: a stalled partition's time lag is "at least N s", never unknown."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from prometheus_client import CollectorRegistry, generate_latest

from lagassign.groups.live_assignment import live_assignment
from lagassign.groups.page import render_group
from lagassign.groups.rates import group_rates
from lagassign.groups.report import group_report
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot, PartitionLag
from lagassign.lagview.time_lag import StallClock, stamp, unstamped
from lagassign.rates.window import RateWindow
from tests.service.group_builders import member

T0 = datetime(2026, 11, 27, 10, 0, tzinfo=UTC)


def shot(seconds: float, committed0: int, end0: int, *, stale: bool = False) -> GroupSnapshot:
    """t-0 held by c-1 (committed ``committed0``, end ``end0``); t-1 caught up."""
    lag0 = max(0, end0 - committed0)
    rows = (
        PartitionLag("t", 0, committed0, end0, 0, lag0, "c-1", "/h", "c", stale=stale),
        PartitionLag("t", 1, 50, 50, 0, 0, "c-2", "/h", "c"),
    )
    return GroupSnapshot(
        group_id="g",
        as_of=T0 + timedelta(seconds=seconds),
        state="Stable",
        protocol_type="classic",
        assignment_strategy="lagassign",
        members=(member("c-1", {"t": [0]}), member("c-2", {"t": [1]})),
        partitions=rows,
    )


def test_a_stalled_partition_grows_one_second_per_second() -> None:
    clock = StallClock()
    for s in range(0, 1001, 100):
        clock.observe(shot(s, 500, 900 + s))
    assert clock.at_least(shot(1000, 500, 1900)) == {("t", 0): 1000.0}
    assert clock.worst_at_least(shot(1000, 500, 1900)) == 1000.0


def test_a_moving_commit_restarts_the_clock_and_catching_up_ends_it() -> None:
    clock = StallClock()
    clock.observe(shot(0, 500, 900))
    clock.observe(shot(60, 600, 960))
    assert clock.worst_at_least(shot(90, 600, 990)) == 30.0
    clock.observe(shot(120, 1020, 1020))
    assert clock.since("g", "t", 0) is None
    assert clock.worst_at_least(shot(120, 1020, 1020)) == 0.0


def test_a_stale_row_keeps_the_clock() -> None:
    clock = StallClock()
    clock.observe(shot(0, 500, 900))
    clock.observe(shot(30, 500, 900, stale=True))
    assert clock.since("g", "t", 0) == T0


def test_forgotten_groups_lose_their_clock() -> None:
    clock = StallClock()
    clock.observe(shot(0, 500, 900))
    clock.forget_all_but(["other"])
    assert clock.since("g", "t", 0) is None


def stalled_window(seconds: int) -> tuple[RateWindow, GroupSnapshot]:
    """A 120 s window fed every 10 s from the moment t-0's commit (500) stalls at its end."""
    window = RateWindow(window_s=120, max_points=12, refresh_interval_s=10)
    last = shot(0, 500, 500)
    for s in range(0, seconds + 1, 10):
        last = shot(s, 500, 500 + s)
        asyncio.run(window.refreshed(Refresh(0.0, True, [last])))
    return window, last


def test_past_the_window_groups_show_at_least_the_windows_span_and_count_it() -> None:
    window, snapshot = stalled_window(600)
    assert window.rates_of(snapshot)[("t", 0)].lag_seconds is None  # the window alone
    rates = group_rates(snapshot, window, live_assignment(snapshot))
    floor = rates.of_partition("t", 0).lag_seconds
    assert floor is not None
    assert 120.0 <= floor <= 130.0
    assert rates.is_lower_bound("t", 0)
    assert not rates.is_lower_bound("t", 1)
    assert rates.group.lag_seconds_max == floor
    assert rates.group.lag_seconds_unknown == 0
    assert rates.worst_is_lower_bound()
    report = group_report(
        "g", snapshot, [], default_strategy="balanced", now=snapshot.as_of, rates=rates
    )
    page = render_group(report)
    assert f"at least {floor:.1f}" in page


def test_inside_the_window_the_time_lag_is_interpolated_not_a_bound() -> None:
    window, snapshot = stalled_window(60)
    rates = group_rates(snapshot, window, live_assignment(snapshot))
    assert rates.of_partition("t", 0).lag_seconds == 60.0
    assert not rates.is_lower_bound("t", 0)
    assert not rates.worst_is_lower_bound()


def test_the_metric_counts_every_partition_behind() -> None:
    from lagassign.metrics.lag_view import LagViewCollector

    class View:
        """Just what the collector reads: snapshots, health, and a store's stall clock."""

        class store:
            stalls = StallClock()

        kafka_up = True
        refresh_errors_total = 0
        tracked_groups_evicted_total = 0

        class consumer_index:
            members = 0

        def snapshots(self) -> dict[str, GroupSnapshot]:
            return {"g": shot(700, 500, 1600)}

    View.store.stalls.observe(shot(0, 500, 900))
    registry = CollectorRegistry()
    registry.register(LagViewCollector(View()))  # type: ignore[arg-type]
    text = generate_latest(registry).decode()
    assert 'lagassign_group_lag_seconds_at_least{group="g"} 700.0' in text


def test_a_record_timestamp_only_ever_moves_the_clock_back() -> None:
    clock = StallClock()
    staged = {"g": clock.observed(shot(100, 500, 900))}
    assert clock.since("g", "t", 0) is None  # staged, not kept: nobody sees it yet
    wanted = unstamped(staged, 64)
    assert wanted == {("t", 0): 500}
    written_ms = round((T0 - timedelta(hours=1)).timestamp() * 1000)
    stamp(staged, wanted, {("t", 0): written_ms})
    clock.keep(staged)
    assert clock.since("g", "t", 0) == T0 - timedelta(hours=1)
    staged = {"g": clock.observed(shot(150, 500, 950))}
    assert unstamped(staged, 64) == {}  # asked once per stall
    clock.keep(staged)
    # A record stamped after the first sighting (a producer's clock ahead) changes nothing.
    staged = {"g": clock.observed(shot(200, 600, 1000))}
    later_ms = round((T0 + timedelta(hours=1)).timestamp() * 1000)
    stamp(staged, unstamped(staged, 64), {("t", 0): later_ms})
    clock.keep(staged)
    assert clock.since("g", "t", 0) == T0 + timedelta(seconds=200)
    assert clock.worst_at_least(shot(260, 600, 1100)) == 60.0
