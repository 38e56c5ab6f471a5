"""Backtest: every strategy of the assignment core replayed over every group's history.

:func:`backtest_snapshots` picks the snapshots to replay (every ``every``-th refresh
of each group, optionally only the newest ``last`` of them) and, for each, the first
refresh at least one horizon later. :func:`backtest` joins to every replayed
snapshot its partitions' lags, forecasts and lags at the horizon, then makes one
grouped-map call per consumer group (:func:`lagassign_pipeline.replay.replay_group`)
over its ordered snapshots.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd  # type: ignore[import-untyped]
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from lagassign.core.strategies import STRATEGIES
from lagassign_pipeline.replay import REPLAY_INPUT_COLUMNS, REPLAY_SCHEMA, replay_group

BACKTEST_COLUMNS = (
    "cluster",
    "group",
    "ts",
    "strategy",
    "weights",
    "members",
    "partitions",
    "max_lag",
    "mean_lag",
    "imbalance",
    "lower_bound",
    "moved",
    "realised_max_lag",
    "realised_imbalance",
    "compute_ms",
)


@dataclass(frozen=True, slots=True)
class BacktestSpec:
    """Which snapshots to replay, with which strategies, and how far ahead to measure."""

    horizon_s: float = 60.0
    every: int = 1
    last: int | None = None
    strategies: tuple[str, ...] = ()  # empty: every strategy of the core

    def __post_init__(self) -> None:
        if self.horizon_s <= 0:
            raise ValueError("horizon_s must be positive")
        if self.every < 1:
            raise ValueError("every must be at least 1")
        if self.last is not None and self.last < 1:
            raise ValueError("last must be at least 1")
        unknown = [s for s in self.strategies if s not in STRATEGIES]
        if unknown:
            raise ValueError(f"unknown strategies {unknown}; use some of {list(STRATEGIES)}")

    @property
    def strategy_names(self) -> tuple[str, ...]:
        return self.strategies or tuple(STRATEGIES)


def backtest_snapshots(rates: DataFrame, spec: BacktestSpec) -> DataFrame:
    """Per group, the replayed refreshes: ``cluster, group, ts, ts_ms, horizon_ts_ms``."""
    refreshes = rates.select("cluster", "group", F.unix_millis("ts").alias("ts_ms")).distinct()
    in_order = Window.partitionBy("cluster", "group").orderBy("ts_ms")
    whole_group = Window.partitionBy("cluster", "group").rowsBetween(
        Window.unboundedPreceding, Window.unboundedFollowing
    )
    ahead = in_order.rangeBetween(round(spec.horizon_s * 1000), Window.unboundedFollowing)
    numbered = refreshes.select(
        "cluster",
        "group",
        "ts_ms",
        (F.row_number().over(in_order) - 1).alias("index"),
        F.count(F.lit(1)).over(whole_group).alias("count"),
        F.min("ts_ms").over(ahead).alias("horizon_ts_ms"),
    )
    picked = numbered.where(F.col("index") % spec.every == 0)
    if spec.last is not None:
        replayed = F.floor((F.col("count") - 1) / spec.every) + 1
        picked = picked.where(F.floor(F.col("index") / spec.every) >= replayed - spec.last)
    return picked.select(
        "cluster",
        "group",
        F.timestamp_millis("ts_ms").alias("ts"),
        "ts_ms",
        "horizon_ts_ms",
    )


def backtest_input(rates: DataFrame, snapshots: DataFrame) -> DataFrame:
    """The grouped-map input (``REPLAY_INPUT_COLUMNS``): one row per partition and snapshot."""
    # Every input column but the lag at the horizon, joined from the later rows below.
    at_decision = [c for c in REPLAY_INPUT_COLUMNS if c != "lag_at_horizon"]
    decisions = rates.join(F.broadcast(snapshots), ["cluster", "group", "ts"]).select(*at_decision)
    horizons = (
        snapshots.where(F.col("horizon_ts_ms").isNotNull())
        .select("cluster", "group", F.timestamp_millis("horizon_ts_ms").alias("ts"))
        .distinct()
    )
    later = rates.join(F.broadcast(horizons), ["cluster", "group", "ts"]).select(
        "cluster",
        "group",
        F.unix_millis("ts").alias("horizon_ts_ms"),
        "topic",
        "partition",
        F.col("lag").alias("lag_at_horizon"),
    )
    joined = decisions.join(
        later, ["cluster", "group", "horizon_ts_ms", "topic", "partition"], "left"
    )
    return joined.select(*REPLAY_INPUT_COLUMNS)


def backtest(rates: DataFrame, spec: BacktestSpec) -> DataFrame:
    """Figures of every strategy, weights source and replayed snapshot (``BACKTEST_COLUMNS``).

    ``rates`` are :func:`lagassign_pipeline.rates.partition_rates` rows: the lags of
    each refresh with their forecasts.
    """
    rows = backtest_input(rates, backtest_snapshots(rates, spec))
    strategies = spec.strategy_names

    def replay(group_rows: pd.DataFrame) -> pd.DataFrame:
        return replay_group(group_rows, strategies)

    replayed = rows.groupBy("cluster", "group").applyInPandas(replay, schema=REPLAY_SCHEMA)
    return replayed.select(
        "cluster",
        "group",
        F.timestamp_millis("ts_ms").alias("ts"),
        *BACKTEST_COLUMNS[3:],
    )
