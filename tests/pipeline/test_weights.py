"""The newest forecast per partition, and the weights file the service loads."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from lagassign.forecast.weights import load_forecast_weights, write_forecast_weights
from lagassign_pipeline.rates import RateSpec, partition_rates
from lagassign_pipeline.weights import FORECAST_COLUMNS, forecast_weights, latest_forecasts
from tests.pipeline.histories import at, history_frame, linear_rows

pytestmark = pytest.mark.spark

SPEC = RateSpec(window_s=30, max_gap_s=25, horizon_s=60)


def test_weights_are_the_newest_forecasts_and_load_in_the_service(
    spark: SparkSession, tmp_path: Path
) -> None:
    times = range(0, 70, 10)
    rows = (
        linear_rows(times, produce=10, consume=8, backlog=400)  # forecast 520 + 120 at t=60
        + linear_rows(times, produce=5, consume=5, backlog=50, partition=2)
        # partition 1 left the group's view at t=30: older than as_of - max_gap, left out
        + linear_rows(range(0, 40, 10), produce=1, consume=1, backlog=9, partition=1)
        + linear_rows(times, produce=3, consume=1, backlog=0, topic="u", consumer="m-2")
        # another group, seen last at t=40: its own as_of
        + linear_rows(range(0, 50, 10), produce=2, consume=1, backlog=11, group="h")
    )
    forecasts = latest_forecasts(partition_rates(history_frame(spark, rows), SPEC), SPEC)
    assert tuple(forecasts.columns) == FORECAST_COLUMNS
    got = {
        (r["group"], r["topic"], r["partition"]): (r["weight"], r["as_of"])
        for r in forecasts.collect()
    }
    naive = {s: at(s).replace(tzinfo=None) for s in (40, 60)}
    assert got == {
        ("g", "t", 0): (640, naive[60]),
        ("g", "t", 2): (50, naive[60]),
        ("g", "u", 0): (240, naive[60]),  # lag 120, trend 2/s
        ("h", "t", 0): (111, naive[40]),  # lag 51, trend 1/s
    }

    path = tmp_path / "forecast-weights.json"
    write_forecast_weights(path, forecast_weights(forecasts, SPEC, generated_at=at(61)))
    loaded = load_forecast_weights(path, now=at(100), max_age_s=45)
    assert loaded is not None
    assert [g.group for g in loaded.groups] == ["g"]  # h is 60 s old: stale
    group = loaded.for_group("g", cluster="c")
    assert group is not None
    assert group.as_of == at(60)
    lags = group.lags({"t": 3, "u": 1})
    assert lags.lags == {"t": [640, 0, 50], "u": [240]}
    assert lags.unknown_partitions == 1
    assert loaded.horizon_seconds == 60.0
    assert loaded.generated_at == at(61)
    assert load_forecast_weights(path, now=at(60) + timedelta(seconds=46), max_age_s=45) is None
