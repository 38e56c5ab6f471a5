"""The pure figures: worked examples, then properties over random windows."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lagassign.rates.figures import NO_OFFSET, incarnation_start, rate, time_lag_s

GAP = 60_000


def test_worked_example_of_the_module_docstring() -> None:
    times = [0, 10_000, 20_000]
    ends = [100, 150, 200]
    assert rate(times, ends, GAP) == 5.0
    assert time_lag_s(times, ends, 125) == 15.0


def test_consume_rate_of_a_group_that_commits_8_per_second() -> None:
    times = [0, 10_000, 20_000, 30_000]
    assert rate(times, [0, 80, 160, 240], GAP) == 8.0


def test_no_lag_is_zero_and_a_committed_offset_past_the_end_too() -> None:
    assert time_lag_s([0, 10_000], [10, 20], 20) == 0.0
    assert time_lag_s([0, 10_000], [10, 20], 25) == 0.0
    assert time_lag_s([0], [20], 20) == 0.0


def test_exactly_at_a_point_gives_the_point_time() -> None:
    assert time_lag_s([0, 10_000, 20_000], [100, 150, 200], 150) == 10.0
    assert time_lag_s([0, 10_000, 20_000], [100, 150, 200], 100) == 20.0


def test_window_that_does_not_reach_back_far_enough_is_null_not_zero() -> None:
    assert time_lag_s([0, 10_000], [100, 150], 99) is None
    assert time_lag_s([0], [100], 50) is None
    assert time_lag_s([], [], 50) is None


def test_unknown_committed_offset_is_null() -> None:
    assert time_lag_s([0, 10_000], [100, 150], NO_OFFSET) is None


def test_a_gap_does_not_count_towards_a_rate() -> None:
    # 10 s steps of 50, then a 10-minute gap with 10,000 records, then a 10 s step of 50.
    times = [0, 10_000, 610_000, 620_000]
    assert rate(times, [0, 50, 10_050, 10_100], GAP) == 5.0
    # Only gaps: nothing honest to say.
    assert rate([0, 600_000], [0, 100], GAP) is None


def test_a_new_partition_has_no_rate() -> None:
    assert rate([0], [100], GAP) is None
    assert rate([], [], GAP) is None


def test_a_recreated_topic_is_neither_a_negative_rate_nor_an_old_time() -> None:
    # The log end drops from 500 to 0 at 20 s (deleted and recreated), then grows 5/s.
    times = [0, 10_000, 20_000, 30_000, 40_000]
    ends = [400, 500, 0, 50, 100]
    assert incarnation_start(ends) == 2
    assert rate(times, ends, GAP) == (100 + 50 + 50) / 30
    # Committed 450 belongs to the old topic: the new one never had a log end that high.
    assert time_lag_s(times, ends, 450, incarnation_start(ends)) == 0.0
    # Committed 25: between 20 s (0) and 30 s (50), at 25 s; newest is 40 s.
    assert time_lag_s(times, ends, 25, incarnation_start(ends)) == 15.0
    # Without the incarnation, the search would have found 400 at 0 s; with it, 50 is not reached.
    assert time_lag_s(times, [400, 500, 60, 70, 100], 50, 2) is None


def test_an_offset_reset_backwards_does_not_count_as_consumption() -> None:
    times = [0, 10_000, 20_000, 30_000]
    committed = [100, 200, 0, 100]
    assert rate(times, committed, GAP) == (100 + 100) / 20
    assert rate(times, [NO_OFFSET, NO_OFFSET, 5, 10], GAP) == 0.5


# --- properties ---------------------------------------------------------------------------

steps = st.lists(
    st.tuples(
        st.integers(min_value=1, max_value=120_000),  # dt ms (some beyond the gap)
        st.integers(min_value=-1_000, max_value=10_000),  # log end step (some resets)
        st.integers(min_value=-1_000, max_value=10_000),  # committed step
    ),
    max_size=40,
)


def window_of(
    start_end: int, start_committed: int, walk: list[tuple[int, int, int]]
) -> tuple[list[int], list[int], list[int]]:
    times, ends, committed = [0], [start_end], [start_committed]
    for dt, de, dc in walk:
        times.append(times[-1] + dt)
        ends.append(max(0, ends[-1] + de))
        committed.append(max(0, committed[-1] + dc))
    return times, ends, committed


@given(st.integers(0, 10**6), st.integers(0, 10**6), steps)
def test_rates_are_never_negative(e0: int, c0: int, walk: list[tuple[int, int, int]]) -> None:
    times, ends, committed = window_of(e0, c0, walk)
    for values in (ends, committed):
        r = rate(times, values, GAP)
        assert r is None or r >= 0


@given(st.integers(0, 10**6), st.integers(0, 10**6), steps)
def test_time_lag_is_null_or_between_zero_and_the_window(
    e0: int, c0: int, walk: list[tuple[int, int, int]]
) -> None:
    times, ends, committed = window_of(e0, c0, walk)
    lag = time_lag_s(times, ends, committed[-1], incarnation_start(ends))
    if committed[-1] >= ends[-1]:
        assert lag == 0.0
    else:
        assert lag is None or 0 <= lag <= times[-1] / 1000


@given(
    st.lists(st.integers(1, 30_000), min_size=1, max_size=30),
    st.integers(1, 1_000),
    st.data(),
)
def test_steady_production_gives_the_rate_and_the_age_of_the_committed_offset(
    gaps: list[int], per_second: int, data: st.DataObject
) -> None:
    # The log end grows exactly per_second records per second, sampled at random times.
    times = [0]
    for dt in gaps:
        times.append(times[-1] + dt)
    ends = [t * per_second // 1000 for t in times]
    assert abs((rate(times, ends, GAP) or 0) - per_second) <= 1000 / times[-1] + 1e-9
    committed = data.draw(st.integers(ends[0], ends[-1]))
    lag = time_lag_s(times, ends, committed)
    assert lag is not None
    # The true age is (t_end - t_committed); integer ends are floored, so allow one record.
    true_age = (times[-1] - committed * 1000 / per_second) / 1000
    assert abs(lag - true_age) <= 1 / per_second + 1e-9 or committed == ends[-1]
