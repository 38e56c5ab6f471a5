"""Summaries of the backtest for the report: small tables computed by Spark.

Each function takes the backtest table (``backtest.BACKTEST_COLUMNS``) and returns a
small DataFrame ending in the ``select`` that is its contract; the report collects
them and draws them.
"""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

QUANTILES = tuple(i / 50 for i in range(51))


def strategy_summary(backtest: DataFrame) -> DataFrame:
    """Per strategy and weights source: the figures over every replayed snapshot."""
    return (
        backtest.groupBy("strategy", "weights")
        .agg(
            F.count(F.lit(1)).alias("snapshots"),
            F.avg("imbalance").alias("imbalance_mean"),
            F.percentile_approx("imbalance", 0.95).alias("imbalance_p95"),
            F.avg("max_lag").alias("max_lag_mean"),
            F.percentile_approx("max_lag", 0.5).alias("max_lag_p50"),
            F.percentile_approx("max_lag", 0.95).alias("max_lag_p95"),
            F.avg(F.try_divide("max_lag", "lower_bound")).alias("over_lower_bound_mean"),
            F.sum("moved").alias("moved_total"),
            F.avg("moved").alias("moved_mean"),
            F.avg("realised_max_lag").alias("realised_max_lag_mean"),
            F.avg("realised_imbalance").alias("realised_imbalance_mean"),
            F.percentile_approx("compute_ms", 0.99).alias("compute_ms_p99"),
        )
        .select(
            "strategy",
            "weights",
            "snapshots",
            "imbalance_mean",
            "imbalance_p95",
            "max_lag_mean",
            "max_lag_p50",
            "max_lag_p95",
            "over_lower_bound_mean",
            "moved_total",
            "moved_mean",
            "realised_max_lag_mean",
            "realised_imbalance_mean",
            "compute_ms_p99",
        )
        .orderBy("strategy", "weights")
    )


def over_time(backtest: DataFrame, weights: str = "lag", buckets: int = 200) -> DataFrame:
    """Per strategy and time bucket: mean imbalance over groups, and cumulative moves.

    The time range is cut into ``buckets`` equal buckets, so a long history still
    draws as at most ``buckets`` points per strategy; ``ts`` is a bucket's start.
    """
    rows = backtest.where(F.col("weights") == weights).select(
        "strategy", F.unix_millis("ts").alias("ts_ms"), "imbalance", "moved"
    )
    span = rows.agg(F.min("ts_ms").alias("first_ms"), F.max("ts_ms").alias("last_ms"))
    spanned = rows.crossJoin(F.broadcast(span))
    width = F.greatest(F.lit(1.0), (F.col("last_ms") - F.col("first_ms")) / F.lit(buckets))
    bucketed = spanned.select(
        "strategy",
        "imbalance",
        "moved",
        F.least(F.floor((F.col("ts_ms") - F.col("first_ms")) / width), F.lit(buckets - 1))
        .cast("long")
        .alias("bucket"),
        (F.col("first_ms") + F.floor((F.col("ts_ms") - F.col("first_ms")) / width) * width)
        .cast("long")
        .alias("bucket_ms"),
    )
    per_bucket = bucketed.groupBy("strategy", "bucket").agg(
        F.min("bucket_ms").alias("bucket_ms"),
        F.avg("imbalance").alias("imbalance"),
        F.sum("moved").alias("moved"),
    )
    so_far = (
        Window.partitionBy("strategy")
        .orderBy("bucket")
        .rowsBetween(Window.unboundedPreceding, Window.currentRow)
    )
    return per_bucket.select(
        "strategy",
        F.timestamp_millis("bucket_ms").alias("ts"),
        "imbalance",
        F.sum("moved").over(so_far).alias("moved_cumulative"),
    ).orderBy("strategy", "ts")


def max_lag_distribution(backtest: DataFrame, weights: str = "lag") -> DataFrame:
    """Per strategy, the quantiles of max member lag (``QUANTILES``), for a distribution plot."""
    return (
        backtest.where(F.col("weights") == weights)
        .groupBy("strategy")
        .agg(F.percentile_approx("max_lag", list(QUANTILES), 10_000).alias("max_lag"))
        .select("strategy", "max_lag")
        .orderBy("strategy")
    )
