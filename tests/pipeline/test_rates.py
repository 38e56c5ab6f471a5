"""Rates and forecasts: exact on histories with known rates; gaps, resets, new partitions."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.testing import assertDataFrameEqual

from lagassign_pipeline.rates import RATE_COLUMNS, RateSpec, partition_rates, rate_windows
from tests.pipeline.histories import at, history_frame, history_row, linear_rows

pytestmark = pytest.mark.spark

TIMES = [0, 10, 20, 30, 40, 50, 60]


def expected(
    seconds: float,
    lag: int,
    produce: float | None,
    consume: float | None,
    trend: float | None,
    seconds_of_lag: float | None,
    forecast: float,
    *,
    partition: int = 0,
    consumer: str | None = "m-1",
) -> dict[str, Any]:
    return {
        "cluster": "c",
        "group": "g",
        "topic": "t",
        "partition": partition,
        "ts": at(seconds),
        "consumer_id": consumer,
        "lag": lag,
        "produce_rate": produce,
        "consume_rate": consume,
        "lag_trend": trend,
        "seconds_of_lag": seconds_of_lag,
        "forecast_lag": forecast,
    }


def assert_rates(spark: SparkSession, actual: DataFrame, rows: list[dict[str, Any]]) -> None:
    assert tuple(actual.columns) == RATE_COLUMNS
    want = spark.createDataFrame([tuple(r[c] for c in RATE_COLUMNS) for r in rows], actual.schema)
    assertDataFrameEqual(actual, want)


def test_known_rates_give_exact_rates_and_forecasts(spark: SparkSession) -> None:
    # p0: log end +10/s, commits +8/s, lag 400 + 2t. p1: +5/s both, lag stays 50.
    history = history_frame(
        spark,
        linear_rows(TIMES, produce=10, consume=8, backlog=400)
        + linear_rows(TIMES, produce=5, consume=5, backlog=50, partition=1),
    )
    rates = partition_rates(history, RateSpec(window_s=30, max_gap_s=60, horizon_s=60))
    rows = [
        expected(0, 400, None, None, None, None, 400.0),
        expected(0, 50, None, None, None, None, 50.0, partition=1),
    ]
    for s in TIMES[1:]:
        lag = 400 + 2 * s
        rows.append(expected(s, lag, 10.0, 8.0, 2.0, lag / 8, lag + 2.0 * 60))
        rows.append(expected(s, 50, 5.0, 5.0, 0.0, 10.0, 50.0, partition=1))
    assert_rates(spark, rates, rows)


def test_a_gap_longer_than_max_gap_does_not_count(spark: SparkSession) -> None:
    # 10/s before the service stopped; 180 s unseen; 30/s after. Lag stays 100.
    ends = {0: 1_000, 10: 1_100, 20: 1_200, 200: 2_100, 210: 2_400, 220: 2_700}
    history = history_frame(spark, [history_row(s, e, e - 100) for s, e in ends.items()])
    rates = partition_rates(history, RateSpec(window_s=300, max_gap_s=60, horizon_s=60))
    rate_at = {10: 10.0, 20: 10.0, 200: 10.0, 210: 500 / 30, 220: 20.0}
    rows = [expected(0, 100, None, None, None, None, 100.0)]
    rows += [expected(s, 100, r, r, 0.0, 100 / r, 100.0) for s, r in rate_at.items()]
    assert_rates(spark, rates, rows)


def test_offset_reset_new_partition_and_missing_commit(spark: SparkSession) -> None:
    spec = RateSpec(window_s=1_000, max_gap_s=60, horizon_s=60)
    # p0: the group resets its offset to the start of the log at t=30.
    p0 = [history_row(s, 1_000 + 10 * s, 600 + 8 * s) for s in (0, 10, 20)]
    p0 += [history_row(30, 1_300, 0), history_row(40, 1_400, 80)]
    # p1: added at t=20. p2: the group never committed (reset policy latest: lag 0).
    p1 = linear_rows((20, 30, 40), produce=4, consume=4, backlog=30, partition=1)
    p2 = [history_row(s, 500 + 10 * s, None, partition=2) for s in (0, 10, 20, 30, 40)]
    rates = partition_rates(history_frame(spark, p0 + p1 + p2), spec)
    rows = [
        expected(0, 400, None, None, None, None, 400.0),
        expected(10, 420, 10.0, 8.0, 2.0, 420 / 8, 540.0),
        expected(20, 440, 10.0, 8.0, 2.0, 440 / 8, 560.0),
        # the reset step counts for the log end only; the rates hold
        expected(30, 1_300, 10.0, 8.0, 2.0, 1_300 / 8, 1_420.0),
        expected(40, 1_320, 10.0, 8.0, 2.0, 1_320 / 8, 1_440.0),
        expected(20, 30, None, None, None, None, 30.0, partition=1),
        expected(30, 30, 4.0, 4.0, 0.0, 7.5, 30.0, partition=1),
        expected(40, 30, 4.0, 4.0, 0.0, 7.5, 30.0, partition=1),
        expected(0, 0, None, None, None, 0.0, 0.0, partition=2),
    ]
    rows += [expected(s, 0, 10.0, None, None, 0.0, 0.0, partition=2) for s in (10, 20, 30, 40)]
    assert_rates(spark, rates, rows)


def test_a_topic_recreated_does_not_give_a_negative_produce_rate(spark: SparkSession) -> None:
    rows_in = [history_row(s, 5_000 + 5 * s, 4_950 + 5 * s) for s in (0, 10, 20)]
    rows_in += [history_row(30, 100, 50), history_row(40, 150, 100)]
    rates = partition_rates(history_frame(spark, rows_in), RateSpec(1_000, 60, 60))
    got = {r["ts"]: (r["produce_rate"], r["consume_rate"]) for r in rates.collect()}
    assert [got[at(s).replace(tzinfo=None)] for s in (10, 20, 30, 40)] == [(5.0, 5.0)] * 4


def test_a_group_that_stops_committing_is_not_draining(spark: SparkSession) -> None:
    # Commits follow the log end (lag 100) until t=20, then stay at 2_100.
    rows_in = [history_row(s, 2_000 + 10 * s, 1_900 + 10 * min(s, 20)) for s in TIMES[:5]]
    rates = partition_rates(history_frame(spark, rows_in), RateSpec(20, 60, 60))
    rows = [
        expected(0, 100, None, None, None, None, 100.0),
        expected(10, 100, 10.0, 10.0, 0.0, 10.0, 100.0),
        expected(20, 100, 10.0, 10.0, 0.0, 10.0, 100.0),
        expected(30, 200, 10.0, 5.0, 5.0, 40.0, 500.0),
        expected(40, 300, 10.0, 0.0, 10.0, None, 900.0),
    ]
    assert_rates(spark, rates, rows)


def test_a_draining_partition_forecasts_no_less_than_zero(spark: SparkSession) -> None:
    history = history_frame(spark, linear_rows(TIMES, produce=2, consume=12, backlog=700))
    rates = partition_rates(history, RateSpec(60, 60, 120))
    last = rates.orderBy("ts").collect()[-1]
    assert (last["lag"], last["lag_trend"], last["forecast_lag"]) == (100, -10.0, 0.0)
    assert last["seconds_of_lag"] == pytest.approx(100 / 12)


def test_rate_windows_close_each_window_on_its_last_snapshot(spark: SparkSession) -> None:
    history = history_frame(spark, linear_rows(TIMES, produce=10, consume=8, backlog=400))
    spec = RateSpec(window_s=30, max_gap_s=60, horizon_s=60)
    windows = rate_windows(partition_rates(history, spec), window_s=30).orderBy("window_start")
    got = [(r["snapshots"], r["lag_max"], r["lag"], r["forecast_lag"]) for r in windows.collect()]
    # windows [0, 30), [30, 60), [60, 90)
    assert got == [(3, 440, 440, 560.0), (3, 500, 500, 620.0), (1, 520, 520, 640.0)]
