"""Per-partition rates and lag forecasts over a trailing window of the history.

For every history row (a partition at one refresh) the trailing window holds the
*steps* that end within the last ``window_s`` seconds (after ``ts - window_s``, up to
``ts``), a step being the change between a row and the partition's previous row.
Over the steps that count:

- ``produce_rate``: log-end growth / elapsed seconds (messages per second);
- ``consume_rate``: committed growth / elapsed seconds;
- ``lag_trend``: lag growth / elapsed seconds (negative when the group catches up);
- ``seconds_of_lag``: lag / consume rate; 0 when the lag is 0, null when the group
  is not draining (consume rate unknown or not positive) while lag remains;
- ``forecast_lag``: ``max(0, lag + lag_trend * horizon_s)``, or the lag itself when
  the trend is unknown (a new partition, a window with only gaps).

Gaps, restarts and resets do not poison the figures: a step counts only when its
gap is at most ``max_gap_s`` (the service was down, or the partition was not seen),
a log-end step only when the log end did not move back (topic recreated), and a
committed step only when both offsets are known and the committed offset did not
move back (an offset reset). A group that stops committing shows a consume rate of
0 and a lag trend equal to the produce rate, and its forecast keeps growing.

Example: a partition whose log end grows 10/s while the group commits 8/s, with lag
400 now, has produce 10, consume 8, trend 2, 50 seconds of lag and, at a 60 s
horizon, a forecast of 520.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import Column, DataFrame, Window, WindowSpec
from pyspark.sql import functions as F

from lagassign_pipeline.history import PARTITION_KEY


@dataclass(frozen=True, slots=True)
class RateSpec:
    """Trailing window, largest gap a step may span, and forecast horizon, in seconds."""

    window_s: float = 300.0
    max_gap_s: float = 60.0
    horizon_s: float = 60.0

    def __post_init__(self) -> None:
        for name in ("window_s", "max_gap_s", "horizon_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")


#: A partition's figures at one snapshot, as the rates and the forecast weights name them.
FIGURES = ("lag", "produce_rate", "consume_rate", "lag_trend", "seconds_of_lag", "forecast_lag")
RATE_COLUMNS = (*PARTITION_KEY, "ts", "consumer_id", *FIGURES)


def partition_rates(history: DataFrame, spec: RateSpec) -> DataFrame:
    """One row per history row with its trailing-window rates and forecast (``RATE_COLUMNS``)."""
    # F.lag reads the partition's previous row; the sums run over an explicit range frame.
    by_partition = Window.partitionBy(*PARTITION_KEY).orderBy("ts_ms")
    # Steps ending in (ts - window, ts]: with refreshes every window/n seconds, n steps.
    trailing = by_partition.rangeBetween(-round(spec.window_s * 1000) + 1, Window.currentRow)

    stepped = history.select(
        *PARTITION_KEY,
        "ts",
        F.unix_millis("ts").alias("ts_ms"),
        "consumer_id",
        "lag",
        "log_end_offset",
        "committed_offset",
    ).select(
        "*",
        F.lag("ts_ms").over(by_partition).alias("prev_ts_ms"),
        F.lag("log_end_offset").over(by_partition).alias("prev_end"),
        F.lag("committed_offset").over(by_partition).alias("prev_committed"),
        F.lag("lag").over(by_partition).alias("prev_lag"),
    )
    # Milliseconds stay integers, so the sums are exact.
    dt_ms = F.col("ts_ms") - F.col("prev_ts_ms")
    in_time = (dt_ms > 0) & (dt_ms <= F.lit(round(spec.max_gap_s * 1000)))
    end_step = F.col("log_end_offset") - F.col("prev_end")
    committed_step = F.col("committed_offset") - F.col("prev_committed")
    end_ok = F.coalesce(in_time & (end_step >= 0), F.lit(False))
    committed_ok = F.coalesce(in_time & (committed_step >= 0), F.lit(False))
    lag_ok = end_ok & committed_ok
    steps = stepped.select(
        *PARTITION_KEY,
        "ts",
        "ts_ms",
        "consumer_id",
        "lag",
        F.when(end_ok, end_step).alias("end_step"),
        F.when(end_ok, dt_ms).alias("end_ms"),
        F.when(committed_ok, committed_step).alias("committed_step"),
        F.when(committed_ok, dt_ms).alias("committed_ms"),
        F.when(lag_ok, F.col("lag") - F.col("prev_lag")).alias("lag_step"),
        F.when(lag_ok, dt_ms).alias("lag_ms"),
    )
    rated = steps.select(
        *PARTITION_KEY,
        "ts",
        "consumer_id",
        "lag",
        _rate("end_step", "end_ms", trailing).alias("produce_rate"),
        _rate("committed_step", "committed_ms", trailing).alias("consume_rate"),
        _rate("lag_step", "lag_ms", trailing).alias("lag_trend"),
    )
    lag = F.col("lag").cast("double")
    return rated.select(
        *PARTITION_KEY,
        "ts",
        "consumer_id",
        "lag",
        "produce_rate",
        "consume_rate",
        "lag_trend",
        F.when(F.col("lag") == 0, F.lit(0.0))
        .when(F.col("consume_rate") > 0, F.try_divide(lag, F.col("consume_rate")))
        .alias("seconds_of_lag"),
        F.greatest(
            F.lit(0.0), lag + F.coalesce(F.col("lag_trend"), F.lit(0.0)) * F.lit(spec.horizon_s)
        ).alias("forecast_lag"),
    )


def rate_windows(rates: DataFrame, window_s: float) -> DataFrame:
    """Per partition and tumbling window: snapshots, lag peak and the figures at its close."""
    window = F.window("ts", f"{round(window_s)} seconds")
    closing = F.struct(
        "ts", "lag", "produce_rate", "consume_rate", "lag_trend", "seconds_of_lag", "forecast_lag"
    )
    return (
        rates.groupBy(*PARTITION_KEY, window.alias("window"))
        .agg(
            F.count(F.lit(1)).alias("snapshots"),
            F.max("lag").alias("lag_max"),
            F.max_by(closing, "ts").alias("close"),
        )
        .select(
            *PARTITION_KEY,
            F.col("window.start").alias("window_start"),
            F.col("window.end").alias("window_end"),
            "snapshots",
            "lag_max",
            F.col("close.lag").alias("lag"),
            F.col("close.produce_rate").alias("produce_rate"),
            F.col("close.consume_rate").alias("consume_rate"),
            F.col("close.lag_trend").alias("lag_trend"),
            F.col("close.seconds_of_lag").alias("seconds_of_lag"),
            F.col("close.forecast_lag").alias("forecast_lag"),
        )
    )


def _rate(step: str, ms: str, frame: WindowSpec) -> Column:
    """Counted change over counted seconds in the frame; null when no step counts."""
    seconds = F.sum(ms).over(frame) / F.lit(1000.0)
    return F.try_divide(F.sum(step).over(frame).cast("double"), seconds)
