"""The lag rules of one partition (docs/lag-rules.md)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lagassign.lagview.rules import RESET_POLICIES, LagReading, lag_by_reset, partition_lag

offsets = st.integers(min_value=0, max_value=10**12)
maybe = st.none() | offsets


def test_worked_example() -> None:
    # end 100, log start 40
    assert partition_lag(25, 40, 100) == LagReading(60, out_of_range=True)
    assert partition_lag(70, 40, 100) == LagReading(30)
    assert partition_lag(None, 40, 100, "earliest") == LagReading(60)
    assert partition_lag(None, 40, 100, "latest") == LagReading(0)


def test_commit_at_or_past_the_end_is_no_lag() -> None:
    assert partition_lag(100, 0, 100) == LagReading(0)
    assert partition_lag(130, 0, 100) == LagReading(0)


def test_commit_exactly_at_log_start_is_in_range() -> None:
    assert partition_lag(40, 40, 100) == LagReading(60, out_of_range=False)


def test_unknown_inputs_give_unknown_lag_never_zero() -> None:
    assert partition_lag(10, 0, None) == LagReading(None)
    assert partition_lag(None, None, 100, "earliest") == LagReading(None)
    assert partition_lag(None, 0, None, "earliest") == LagReading(None)
    # With "latest" the consumer starts at the end, whatever the end is.
    assert partition_lag(None, None, None, "latest") == LagReading(0)
    # An unknown log start cannot flag out of range: end - committed.
    assert partition_lag(10, None, 100) == LagReading(90)


@given(committed=offsets, log_start=offsets, end=offsets)
def test_lag_is_never_negative_and_out_of_range_iff_below_log_start(
    committed: int, log_start: int, end: int
) -> None:
    reading = partition_lag(committed, log_start, end)
    assert reading.lag is not None
    assert reading.lag >= 0
    assert reading.out_of_range == (committed < log_start)
    expected = end - log_start if committed < log_start else end - committed
    assert reading.lag == max(0, expected)


@given(committed=maybe, log_start=maybe, end=maybe)
def test_unknown_only_when_an_input_the_rule_needs_is_unknown(
    committed: int | None, log_start: int | None, end: int | None
) -> None:
    for reset in RESET_POLICIES:
        reading = partition_lag(committed, log_start, end, reset)
        needs = [end]
        if committed is None:
            needs = [log_start, end] if reset == "earliest" else []
        assert (reading.lag is None) == any(v is None for v in needs)


def test_lag_by_reset() -> None:
    assert lag_by_reset("latest", 10, 50) == 0
    assert lag_by_reset("earliest", 10, 50) == 40
    assert lag_by_reset("earliest", None, 50) == 0
    assert lag_by_reset("earliest", 10, None) == 0
