"""The rate window fed snapshot by snapshot: bounds, resets, recreated topics, new partitions."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot, PartitionLag
from lagassign.rates.figures import incarnation_start, rate, time_lag_s
from lagassign.rates.partition_window import PartitionRates, PartitionWindow
from lagassign.rates.window import RateWindow

T0 = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def row(
    topic: str, partition: int, end: int | None, committed: int | None, *, stale: bool = False
) -> PartitionLag:
    lag = None if end is None or committed is None else max(0, end - committed)
    return PartitionLag(topic, partition, committed, end, 0, lag, None, None, None, stale=stale)


def snap(at_s: float, *rows: PartitionLag, group: str = "g") -> GroupSnapshot:
    return GroupSnapshot(
        group_id=group,
        as_of=T0 + timedelta(seconds=at_s),
        state="Stable",
        protocol_type="classic",
        assignment_strategy="range",
        members=(),
        partitions=tuple(rows),
    )


def fed(window: RateWindow, snapshots: list[GroupSnapshot]) -> RateWindow:
    for s in snapshots:
        asyncio.run(window.refreshed(Refresh(0.0, True, [s])))
    return window


def rates(window: RateWindow, s: GroupSnapshot) -> dict[tuple[str, int], PartitionRates]:
    return window.rates_of(s)


def test_paused_group_and_steady_producer() -> None:
    # 10 records/s, refresh every 10 s, the group stays at 100.
    shots = [snap(10 * i, row("t", 0, 100 + 100 * i, 100)) for i in range(10)]
    window = fed(RateWindow(refresh_interval_s=10), shots)
    got = rates(window, shots[-1])[("t", 0)]
    assert got == PartitionRates(lag_seconds=90.0, produce_rate=10.0, consume_rate=0.0)


def test_window_that_does_not_reach_back_is_null_and_no_lag_is_zero() -> None:
    shots = [snap(10 * i, row("t", 0, 1_000 + 100 * i, 500), row("t", 1, 50, 50)) for i in range(3)]
    window = fed(RateWindow(refresh_interval_s=10), shots)
    got = rates(window, shots[-1])
    assert got[("t", 0)].lag_seconds is None
    assert got[("t", 0)].produce_rate == 10.0
    assert got[("t", 1)] == PartitionRates(0.0, 0.0, 0.0)


def test_a_new_partition_has_nulls_then_figures() -> None:
    shots = [snap(0, row("t", 0, 10, 10)), snap(10, row("t", 0, 20, 10), row("t", 1, 40, 30))]
    window = fed(RateWindow(refresh_interval_s=10), shots)
    got = rates(window, shots[-1])
    assert got[("t", 1)] == PartitionRates(None, None, None)
    assert got[("t", 0)] == PartitionRates(10.0, 1.0, 0.0)


def test_deleted_and_recreated_topic() -> None:
    before = [snap(10 * i, row("t", 0, 1_000 + 50 * i, 900)) for i in range(5)]
    # Deleted: the group no longer lists it, then recreated with a fresh log end.
    gone = [snap(50)]
    after = [snap(60 + 10 * i, row("t", 0, 20 * i, 900)) for i in range(4)]
    window = fed(RateWindow(refresh_interval_s=10), before + gone + after)
    got = rates(window, after[-1])[("t", 0)]
    # A fresh window: 2 records/s, nothing consumed, the committed offset is past the end.
    assert got == PartitionRates(lag_seconds=0.0, produce_rate=2.0, consume_rate=0.0)
    # Recreated without a refresh in between: the log end moves back inside the window.
    window = fed(RateWindow(refresh_interval_s=10), before + after)
    got = rates(window, after[-1])[("t", 0)]
    assert got.produce_rate is not None
    assert got.produce_rate >= 0
    assert got.consume_rate == 0.0
    w = window.partition_window("g", "t", 0)
    assert w is not None
    assert w.ends[w.start] == 0
    assert w.ends[w.start - 1] == 1_200


def test_offset_reset_and_unknown_commits() -> None:
    shots = [
        snap(0, row("t", 0, 1_000, 500)),
        snap(10, row("t", 0, 1_100, 600)),
        snap(20, row("t", 0, 1_200, 100)),  # reset back: no negative consumption
        snap(30, row("t", 0, 1_300, None)),  # commit unknown
        snap(40, row("t", 0, 1_400, 300)),
    ]
    window = fed(RateWindow(refresh_interval_s=10), shots)
    got = rates(window, shots[-1])[("t", 0)]
    assert got.consume_rate == 10.0  # only the 0 -> 10 s step counts
    assert got.produce_rate == 10.0
    assert got.lag_seconds is None  # 300 is before the window starts (1,000 at 0 s)
    unknown = rates(window, snap(40, row("t", 0, 1_400, None)))[("t", 0)]
    assert unknown.lag_seconds is None


def test_gaps_do_not_count_and_stale_rows_add_nothing() -> None:
    shots = [
        snap(0, row("t", 0, 0, 0)),
        snap(10, row("t", 0, 100, 0)),
        snap(400, row("t", 0, 100_000, 0)),  # a gap of 390 s
        snap(410, row("t", 0, 100_100, 0)),
        snap(420, row("t", 0, 999_999, 0, stale=True)),
    ]
    window = fed(RateWindow(refresh_interval_s=10), shots)
    got = rates(window, shots[-2])[("t", 0)]
    assert got.produce_rate == 10.0
    w = window.partition_window("g", "t", 0)
    assert w is not None
    assert len(w) == 4


def test_a_group_unseen_for_a_whole_window_is_forgotten() -> None:
    shots = [snap(0, row("t", 0, 1, 0), group="a"), snap(0, row("t", 0, 1, 0), group="b")]
    shots += [snap(10 * i, row("t", 0, 1, 0), group="b") for i in range(1, 8)]
    window = fed(RateWindow(window_s=60, refresh_interval_s=10), shots)
    assert window.groups() == ["b"]


def test_lag_line_sums_the_partitions_at_each_refresh() -> None:
    shots = [snap(10 * i, row("t", 0, 10 * i, 0), row("t", 1, 5 * i, 0)) for i in range(3)]
    window = fed(RateWindow(window_s=60, max_points=6, refresh_interval_s=10), shots)
    base = round(T0.timestamp() * 1000)
    line = window.lag_line("g", [("t", 0), ("t", 1)])
    assert line == [(base, 0), (base + 10_000, 15), (base + 20_000, 30)]


# --- properties: bounded, and the running sums equal the pure figures -----------------------

walks = st.lists(
    st.tuples(
        st.integers(1, 90_000),  # ms between refreshes
        st.integers(-500, 5_000),  # log end step (negative: recreated)
        st.one_of(st.none(), st.integers(-500, 5_000)),  # committed step, None: no commit
    ),
    min_size=1,
    max_size=200,
)


@given(walks, st.integers(2, 16), st.sampled_from([30.0, 120.0, 900.0]))
def test_bounded_and_the_running_sums_are_the_pure_rates(
    walk: list[tuple[int, int, int | None]], max_points: int, window_s: float
) -> None:
    window = RateWindow(window_s=window_s, max_points=max_points, refresh_interval_s=5)
    w = PartitionWindow()
    t, end, committed = 0, 1_000, 500
    for dt, de, dc in walk:
        t += dt
        end = max(0, end + de)
        committed = -1 if dc is None else max(0, (committed if committed >= 0 else 0) + dc)
        w.add(
            t,
            end,
            committed,
            window_ms=window.window_ms,
            spacing_ms=window.spacing_ms,
            max_gap_ms=window.max_gap_ms,
            max_points=window.max_points,
        )
        assert len(w) <= max_points + 2
        assert w.times[0] > t - window.window_ms or len(w) == 1 or w.times[1] > t - window.window_ms
    times, ends, comm = list(w.times), list(w.ends), list(w.committed)
    assert w.produce_rate() == rate(times, ends, window.max_gap_ms)
    assert w.consume_rate() == rate(times, comm, window.max_gap_ms)
    assert w.start == incarnation_start(ends)
    assert w.time_lag_s() == time_lag_s(times, ends, comm[-1], incarnation_start(ends))
    for r in (w.produce_rate(), w.consume_rate()):
        assert r is None or r >= 0
