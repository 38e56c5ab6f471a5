"""The drain lag model: the horizon, capacity and weights on worked examples, then properties."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lagassign.assign.lag_sources import LagSource
from lagassign.core.model import Member, make_rebalance
from lagassign.core.strategies.balanced import assign as balanced
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot, MemberDescription, PartitionLag
from lagassign.rates.drain import (
    CEILING_S,
    DEFAULT_HORIZON_S,
    FLOOR_S,
    catch_up_horizon,
    drain_weights,
    measured_capacity,
)
from lagassign.rates.drain_lags import live_of, with_drain
from lagassign.rates.partition_window import MOVES_PER_SPAN
from lagassign.rates.window import RateWindow

T0 = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def member_weights(
    assignment: Mapping[str, Mapping[str, Sequence[int]]], weights: Mapping[str, Sequence[int]]
) -> dict[str, int]:
    return {
        m: sum(weights[t][p] for t, ps in topics.items() for p in ps)
        for m, topics in assignment.items()
    }


# --- the module's worked example --------------------------------------------------------


def test_worked_example_horizon_weights_and_answer() -> None:
    lags = {"t": [3000, 1000, 0, 0]}
    rates = {("t", 0): 0.0, ("t", 1): 0.0, ("t", 2): 450.0, ("t", 3): 30.0}
    horizon = catch_up_horizon(4000, 480.0, 2, 500.0)
    # 4000 / (1000 - 480) = 7.7 s, raised to the floor
    assert horizon.seconds == FLOOR_S
    assert (horizon.capacity, horizon.capacity_source, horizon.overrun) == (
        500.0,
        "measured",
        False,
    )
    weights, unknown = drain_weights(lags, rates, horizon.seconds)
    assert weights == {"t": [3000, 1000, 4500, 300]}
    assert unknown == 0

    members = [Member("a", ("t",)), Member("b", ("t",))]
    answer = balanced(make_rebalance(members, {"t": 4}, weights))
    # the 450/s partition's owner takes nothing heavy beside it: 4500 + 300
    assert max(member_weights(answer, weights).values()) == 4800
    holder = next(m for m, topics in answer.items() if 2 in topics["t"])
    assert sorted(answer[holder]["t"]) == [2, 3]
    # so every member drains by the horizon: 4800 <= 500 x 10
    assert max(member_weights(answer, weights).values()) <= 500 * horizon.seconds


def test_horizon_between_floor_and_ceiling() -> None:
    # 36,000 records, 5 x 500/s, 600/s arriving: 36,000 / 1,900 = 18.9 s
    assert catch_up_horizon(36_000, 600.0, 5, 500.0).seconds == pytest.approx(36_000 / 1_900)
    # no backlog: the floor, so the weights balance the inflow
    assert catch_up_horizon(0, 600.0, 5, 500.0).seconds == FLOOR_S
    # a huge backlog drained slowly: the ceiling
    assert catch_up_horizon(10**12, 0.0, 1, 1.0).seconds == CEILING_S


def test_inflow_beyond_the_group_capacity_is_an_overrun_at_the_ceiling() -> None:
    horizon = catch_up_horizon(1_000, 1_200.0, 2, 500.0)
    assert horizon.overrun
    assert horizon.seconds == CEILING_S
    # the weights are then led by the rates: 10 records/s outweighs a 30,000 backlog
    weights, _ = drain_weights({"t": [30_000, 0]}, {("t", 0): 0.0, ("t", 1): 10.0}, horizon.seconds)
    assert weights["t"][1] > weights["t"][0]


def test_unknown_capacity_uses_the_default_horizon() -> None:
    horizon = catch_up_horizon(5_000, 100.0, 3, None)
    assert (horizon.seconds, horizon.capacity, horizon.capacity_source) == (
        DEFAULT_HORIZON_S,
        None,
        "unknown",
    )


def test_a_member_whose_inflow_alone_exceeds_its_capacity_is_handed_nothing_else_heavy() -> None:
    # one partition at 600/s (above one member's 500/s), three at 10/s; two members
    lags = {"t": [0, 900, 800, 0]}
    rates = {("t", 0): 600.0, ("t", 1): 10.0, ("t", 2): 10.0, ("t", 3): 10.0}
    horizon = catch_up_horizon(1_700, 630.0, 2, 500.0)
    assert horizon.seconds == FLOOR_S  # 1,700 / 370 = 4.6 s
    weights, _ = drain_weights(lags, rates, horizon.seconds)
    members = [Member("a", ("t",)), Member("b", ("t",))]
    answer = balanced(make_rebalance(members, {"t": 4}, weights))
    holder = next(m for m, topics in answer.items() if 0 in topics["t"])
    # the hot partition's owner gets the idle one, the other member both backlogs
    assert sorted(answer[holder]["t"]) == [0, 3]


def test_unknown_rates_weigh_their_lag_and_are_counted() -> None:
    weights, unknown = drain_weights({"t": [5, 6, 7]}, {("t", 0): 1.0}, 10.0)
    assert weights == {"t": [15, 6, 7]}
    assert unknown == 2


# --- capacity -----------------------------------------------------------------------------


def test_capacity_is_the_median_of_members_reading_with_backlog() -> None:
    live = {
        "a": {"t": [0, 1]},  # backlog, reads 480/s
        "b": {"t": [2]},  # backlog, reads 500/s
        "c": {"t": [3]},  # backlog, reads 520/s
        "d": {"t": [4]},  # no backlog: idles, says nothing of its capacity
        "e": {"t": [5]},  # backlog but its rate is unknown
    }
    lags = {("t", i): lag for i, lag in enumerate([100, 0, 50, 60, 0, 70])}
    rates = {("t", 0): 300.0, ("t", 1): 180.0, ("t", 2): 500.0, ("t", 3): 520.0, ("t", 4): 5.0}
    assert measured_capacity(live, lags, rates) == 500.0
    assert measured_capacity({"d": {"t": [4]}}, lags, rates) is None
    # a partition without lag adds its rate, or nothing when it has none (it stood still)
    assert measured_capacity({"f": {"t": [2, 4]}}, lags, rates) == 505.0
    assert measured_capacity({"f": {"t": [2, 6]}}, lags | {("t", 6): 0}, rates) == 500.0
    # one of its partitions with backlog not seen reading: the sum would be too small
    assert measured_capacity({"g": {"t": [2, 5]}}, lags, rates) is None


# --- the recent rate ------------------------------------------------------------------------


def rows_at(end: int, committed: int) -> GroupSnapshot:
    return GroupSnapshot(
        group_id="g",
        as_of=T0,
        state="Stable",
        protocol_type="classic",
        assignment_strategy="range",
        members=(),
        partitions=(
            PartitionLag("t", 0, committed, end, 0, max(0, end - committed), None, None, None),
        ),
    )


def fed_window(points: list[tuple[float, int, int]], recent_s: float) -> RateWindow:
    window = RateWindow(refresh_interval_s=10, recent_s=recent_s)
    for at_s, end, committed in points:
        shot = dataclasses.replace(rows_at(end, committed), as_of=T0 + timedelta(seconds=at_s))
        asyncio.run(window.refreshed(Refresh(0.0, True, [shot])))
    return window


def test_recent_produce_reaches_back_to_the_last_point_a_span_older() -> None:
    # points at 0, 30 and 40 s with log ends 0, 300 and 500
    points = [(0.0, 0, 0), (30.0, 300, 100), (40.0, 500, 200)]
    wide = fed_window(points, recent_s=20).partition_window("g", "t", 0)
    assert wide is not None
    # from 0 s (the last point 20 s or more before 40 s): 500 / 40 s
    assert wide.recent_produce == pytest.approx(12.5)
    narrow = fed_window(points, recent_s=5).partition_window("g", "t", 0)
    assert narrow is not None
    # from 30 s: 200 / 10 s
    assert narrow.recent_produce == pytest.approx(20.0)
    single = fed_window(points[:1], recent_s=5).partition_window("g", "t", 0)
    assert single is not None
    assert single.recent_produce is None


def test_recent_produce_never_reaches_across_a_reset_or_a_gap() -> None:
    # the topic was recreated at 20 s (log end back to 0): only what came since counts
    reset = fed_window([(0.0, 900, 900), (10.0, 1000, 1000), (20.0, 0, 0), (30.0, 100, 50)], 60)
    window = reset.partition_window("g", "t", 0)
    assert window is not None
    assert window.recent_produce == pytest.approx(10.0)
    # a 100 s gap (the sidecar was away): the rate starts after it
    gap = fed_window([(0.0, 0, 0), (100.0, 5000, 0), (110.0, 5100, 0)], 300)
    window = gap.partition_window("g", "t", 0)
    assert window is not None
    assert window.recent_produce == pytest.approx(10.0)


# --- the reading rate (member capacity) -----------------------------------------------------

BACKLOG_END = 100_000


def reading_rates(
    committed: Mapping[float, int | None], recent_s: float = 30
) -> list[float | None]:
    """The reading rate after each point: refreshes at the given seconds, the log end
    far ahead (a backlog), the committed offset as given (``None``: the group has none)."""
    window = RateWindow(refresh_interval_s=1, recent_s=recent_s)
    out = []
    for at_s, offset in committed.items():
        row = PartitionLag("t", 0, offset, BACKLOG_END, 0, None, None, None, None)
        shot = dataclasses.replace(
            rows_at(BACKLOG_END, 0), as_of=T0 + timedelta(seconds=at_s), partitions=(row,)
        )
        window.record(shot)
        partition = window.partition_window("g", "t", 0)
        assert partition is not None
        out.append(partition.reading_rate)
    return out


def test_cold_start_shows_the_true_rate_from_the_second_moving_refresh() -> None:
    # Still at offset 0 for 20 s (refreshes every second), then reading 500 records/s
    # from 20.5 s, committing every batch: offsets 250 at 21 s, 750 at 22 s, ...
    committed = {float(t): 0 for t in range(21)}
    committed |= {float(t): 250 + 500 * (t - 21) for t in range(21, 26)}
    rates = reading_rates(committed)
    assert rates[:22] == [None] * 22  # still, then one move: nothing shown yet
    assert rates[22:] == [pytest.approx(500.0)] * 4
    # the consume rate over the recent 30 s would say 2,250 / 25 s = 90 records/s


def test_commits_rarer_than_refreshes_never_run_ahead() -> None:
    # Still until 10 s, then reading 100 records/s, committing every 5 s (500 at 15 s,
    # 1,000 at 20 s, 1,500 at 25 s), refreshed every second. Starting from the still
    # point before the first move would credit 500 records to 1 s at 15 s (5x).
    committed = {float(t): 100 * (t - t % 5 - 10) if t >= 15 else 0 for t in range(31)}
    rates = reading_rates(committed)
    assert rates[:16] == [None] * 16
    assert rates[16:20] == [0.0] * 4  # between its first two commits: short, not ahead
    assert rates[20] == pytest.approx(100.0)
    assert rates[25] == pytest.approx(100.0)
    assert rates[30] == pytest.approx(100.0)
    assert max(r for r in rates if r is not None) == pytest.approx(100.0)


def test_a_group_that_stopped_reading_loses_its_figure_within_the_span() -> None:
    # 500 records/s committed every second until 10 s, then standing still with lag
    committed = {float(t): 500 * min(t, 10) for t in range(61)}
    rates = reading_rates(committed, recent_s=30)
    assert rates[10] == pytest.approx(500.0)
    # at 25 s: from the oldest move in the span (1 s): 4,500 over 24 s, falling
    assert rates[25] == pytest.approx(4500 / 24)
    assert rates[41:] == [None] * 20  # no move left in the newest 30 s


def test_no_figure_without_a_move_and_none_across_a_reset_gap_or_unknown_offset() -> None:
    assert reading_rates({float(t): 700 for t in range(40)}) == [None] * 40  # never moved
    # no commit at first; the first commit (at 3 s) is where reading is measured from
    assert reading_rates({0.0: None, 1.0: None, 3.0: 100, 4.0: 600}) == [
        None,
        None,
        None,
        pytest.approx(500.0),
    ]
    # an offset reset at 3 s: the moves before it no longer count
    assert reading_rates({0.0: 0, 1.0: 900, 2.0: 1800, 3.0: 10, 4.0: 110})[3:] == [
        None,
        pytest.approx(100.0),
    ]
    # a 100 s gap (the sidecar was away): measured again from the first move after it
    assert reading_rates({0.0: 0, 1.0: 500, 101.0: 9000, 102.0: 9500, 103.0: 10000})[2:] == [
        None,
        None,
        pytest.approx(500.0),
    ]


def test_the_moves_kept_stay_few_whatever_the_refresh_interval() -> None:
    # 10 refreshes a second for 60 s, reading 200 records/s
    committed = {t / 10: 20 * t for t in range(600)}
    window = RateWindow(refresh_interval_s=0.1, recent_s=30)
    for at_s, offset in committed.items():
        shot = dataclasses.replace(rows_at(BACKLOG_END, offset), as_of=T0 + timedelta(seconds=at_s))
        window.record(shot)
    partition = window.partition_window("g", "t", 0)
    assert partition is not None
    assert len(partition.moves) <= MOVES_PER_SPAN + 2
    assert partition.reading_rate == pytest.approx(200.0)


# --- from the rate window, as /assign applies it --------------------------------------------


def snapshot(at_s: float, ends: list[int], committed: list[int]) -> GroupSnapshot:
    rows = tuple(
        PartitionLag("t", p, c, e, 0, max(0, e - c), "m0" if p < 2 else "m1", None, None)
        for p, (e, c) in enumerate(zip(ends, committed, strict=True))
    )
    members = (
        MemberDescription("m0", None, "c", "h", assignment={"t": (0, 1)}),
        MemberDescription("m1", None, "c", "h", assignment={"t": (2, 3)}),
    )
    return GroupSnapshot(
        group_id="g",
        as_of=T0 + timedelta(seconds=at_s),
        state="Stable",
        protocol_type="classic",
        assignment_strategy="range",
        members=members,
        partitions=rows,
    )


def test_with_drain_measures_rates_and_capacity_from_the_window() -> None:
    # Partition 2 gets 450 records/s, partition 3 30/s; m0 reads 500/s off partition 0's
    # backlog, m1 keeps up with its inflow (no backlog: its rate says nothing of capacity).
    window = RateWindow(refresh_interval_s=1)
    shots = []
    for i in range(11):
        ends = [10_000, 1_000, 450 * i, 30 * i]
        committed = [500 * i, 1_000, 450 * i, 30 * i]
        shots.append(snapshot(i, ends, committed))
    for s in shots:
        asyncio.run(window.refreshed(Refresh(0.0, True, [s])))
    last = shots[-1]
    lag = LagSource("kafka", lags={"t": [p.lag or 0 for p in last.partitions]})
    drained = with_drain(lag, "g", window, live_of(last), members=2)
    assert drained.source == "kafka-drain"
    assert drained.horizon is not None
    assert drained.horizon.capacity == pytest.approx(500.0)
    assert drained.horizon.capacity_source == "measured"
    # backlog 5,000 / (1,000 - 480) = 9.6 s: the floor
    assert drained.horizon.seconds == FLOOR_S
    assert drained.lags == {"t": [5_000, 0, 4_500, 300]}
    assert drained.unknown_rates == 0
    # an operator's setting wins over the measure
    # (2 x 250 - 480 = 20 records/s to spare: 5,000 / 20 = 250 s)
    slow = with_drain(lag, "g", window, live_of(last), members=2, capacity_setting=250.0)
    assert slow.horizon is not None
    assert slow.horizon.capacity_source == "setting"
    assert slow.horizon.seconds == pytest.approx(250.0)
    # 2 x 200 is below the 480 records/s arriving: the group cannot catch up
    over = with_drain(lag, "g", window, live_of(last), members=2, capacity_setting=200.0)
    assert over.horizon is not None
    assert over.horizon.overrun
    assert over.horizon.seconds == CEILING_S


def test_with_drain_measures_a_group_that_just_started_reading_at_its_rate() -> None:
    # Every partition holds 10,000 records; the group stands still for 20 s, then each
    # member reads 500 records/s (m0 off partition 0, m1 250/s off each of 2 and 3).
    window = RateWindow(refresh_interval_s=1)
    capacities = []
    for i in range(26):
        reading = max(0, i - 20)
        shot = snapshot(i, [10_000] * 4, [500 * reading, 0, 250 * reading, 250 * reading])
        asyncio.run(window.refreshed(Refresh(0.0, True, [shot])))
        lag = LagSource("kafka", lags={"t": [p.lag or 0 for p in shot.partitions]})
        drained = with_drain(lag, "g", window, live_of(shot), members=2)
        assert drained.horizon is not None
        capacities.append(drained.horizon.capacity)
    # unknown while still and at the first moving refresh, then the members' own rate
    # (the consume rate over the newest 30 s would say 500 x 5 / 25 = 100 at 25 s)
    assert capacities[:22] == [None] * 22
    assert capacities[22:] == [pytest.approx(500.0)] * 4


def test_with_drain_leaves_other_sources_alone() -> None:
    window = RateWindow(refresh_interval_s=1)
    lag = LagSource("request", lags={"t": [1, 2]})
    assert with_drain(lag, "g", window, {}, members=1) is lag


# --- properties ------------------------------------------------------------------------------

lag_rows = st.lists(st.integers(0, 10**6), min_size=1, max_size=12)


@given(
    topics=st.lists(lag_rows, min_size=1, max_size=4),
    members=st.integers(1, 5),
    capacity=st.none() | st.floats(1, 10_000),
    rates_known=st.booleans(),
)
def test_with_all_rates_zero_or_unknown_the_answer_is_the_backlog_models(
    topics: list[list[int]], members: int, capacity: float | None, rates_known: bool
) -> None:
    lags = {f"t{i}": row for i, row in enumerate(topics)}
    rates = {
        (t, p): (0.0 if rates_known else None) for t, row in lags.items() for p in range(len(row))
    }
    total = sum(sum(row) for row in topics)
    horizon = catch_up_horizon(total, 0.0, members, capacity)
    weights, unknown = drain_weights(lags, rates, horizon.seconds)
    assert weights == lags
    assert unknown == (0 if rates_known else sum(len(row) for row in topics))
    group = [Member(f"m{i}", tuple(lags)) for i in range(members)]
    counts = {t: len(row) for t, row in lags.items()}
    assert balanced(make_rebalance(group, counts, weights)) == balanced(
        make_rebalance(group, counts, lags)
    )


# --- counts give way to flows ----------------------------------------------------------------


def test_counts_give_way_where_production_makes_partitions_unlike() -> None:
    # flow_moves' example: partition 0 gets 450 records/s and no backlog, 1-3 hold
    # 3,000 each and get 29/s; two members of 500 records/s.
    lags = {"t": [0, 3000, 3000, 3000]}
    rates = {("t", 0): 450.0, ("t", 1): 29.0, ("t", 2): 29.0, ("t", 3): 29.0}
    horizon = catch_up_horizon(9000, 537.0, 2, 500.0)
    assert horizon.seconds == pytest.approx(9000 / 463)
    weights, _ = drain_weights(lags, rates, horizon.seconds)
    assert weights == {"t": [8747, 3564, 3564, 3564]}
    members = [Member("a", ("t",)), Member("b", ("t",))]
    even = balanced(make_rebalance(members, {"t": 4}, weights))
    assert max(member_weights(even, weights).values()) == 8747 + 3564  # two partitions each
    flowing = balanced(make_rebalance(members, {"t": 4}, weights, flows=True))
    holder = next(m for m, topics in flowing.items() if 0 in topics["t"])
    assert flowing[holder] == {"t": [0]}
    assert max(member_weights(flowing, weights).values()) == 3 * 3564


@given(
    topics=st.lists(lag_rows, min_size=1, max_size=3),
    members=st.integers(1, 4),
)
def test_flow_moves_never_raise_the_largest_weight(topics: list[list[int]], members: int) -> None:
    lags = {f"t{i}": row for i, row in enumerate(topics)}
    group = [Member(f"m{i}", tuple(lags)) for i in range(members)]
    counts = {t: len(row) for t, row in lags.items()}
    even = balanced(make_rebalance(group, counts, lags))
    flowing = balanced(make_rebalance(group, counts, lags, flows=True))
    assert max(member_weights(flowing, lags).values()) <= max(member_weights(even, lags).values())
    given_out = sorted((t, p) for a in flowing.values() for t, ps in a.items() for p in ps)
    assert given_out == sorted((t, p) for t, row in lags.items() for p in range(len(row)))
