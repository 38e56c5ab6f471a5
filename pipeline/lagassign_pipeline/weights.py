"""The newest forecast of every partition, and the weights file built from it.

A group's forecasts are taken at its newest refresh (``as_of``). A partition whose
newest row is older than that by more than the rate spec's ``max_gap_s`` is left
out (deleted, or no longer in the group's view): the service then counts it as
unknown rather than trusting a stale figure. Weights are forecast lags rounded to
whole messages.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from lagassign.forecast.weights import ForecastWeights, GroupForecast
from lagassign_pipeline.history import PARTITION_KEY
from lagassign_pipeline.rates import FIGURES, RateSpec

FORECAST_COLUMNS = (*PARTITION_KEY, "ts", *FIGURES, "weight", "as_of")


def latest_forecasts(rates: DataFrame, spec: RateSpec) -> DataFrame:
    """One row per live partition: its newest figures and the group's ``as_of``."""
    newest = F.struct("ts", *FIGURES)
    per_partition = rates.groupBy(*PARTITION_KEY).agg(F.max_by(newest, "ts").alias("n"))
    whole_group = Window.partitionBy("cluster", "group").rowsBetween(
        Window.unboundedPreceding, Window.unboundedFollowing
    )
    latest = per_partition.select(
        *PARTITION_KEY, "n.*", F.max("n.ts").over(whole_group).alias("as_of")
    )
    live = F.unix_millis("ts") >= F.unix_millis("as_of") - F.lit(round(spec.max_gap_s * 1000))
    return latest.where(live).select(
        *PARTITION_KEY,
        "ts",
        *FIGURES,
        F.round("forecast_lag").cast("long").alias("weight"),
        "as_of",
    )


def forecast_weights(
    forecasts: DataFrame, spec: RateSpec, generated_at: datetime | None = None
) -> ForecastWeights:
    """Collect :func:`latest_forecasts` rows (one per partition) into the weights file's values."""
    rows = forecasts.select(
        *PARTITION_KEY, "weight", F.unix_millis("as_of").alias("as_of_ms")
    ).collect()
    weights: dict[tuple[str, str], dict[str, dict[int, int]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    as_of: dict[tuple[str, str], datetime] = {}
    for row in rows:
        key = (row["cluster"], row["group"])
        weights[key][row["topic"]][row["partition"]] = row["weight"]
        as_of[key] = datetime.fromtimestamp(row["as_of_ms"] / 1000, UTC)
    groups = tuple(
        GroupForecast(
            cluster=cluster,
            group=group,
            as_of=as_of[(cluster, group)],
            topics={
                topic: tuple(by_partition.get(p) for p in range(max(by_partition) + 1))
                for topic, by_partition in sorted(weights[(cluster, group)].items())
            },
        )
        for cluster, group in sorted(weights)
    )
    return ForecastWeights(
        generated_at=generated_at or datetime.now(UTC),
        horizon_seconds=spec.horizon_s,
        window_seconds=spec.window_s,
        groups=groups,
    )
