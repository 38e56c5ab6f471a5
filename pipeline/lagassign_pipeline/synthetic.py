"""A seeded synthetic lag history with the exact schema the service records.

Used when no recorded history exists (``make pipeline`` on a fresh machine), by the
tests and by the benchmark. Built from ``spark.range`` with built-in functions only,
so ten million rows take seconds; every per-partition draw is a hash of the seed and
the partition's coordinates, so the rows are the same whatever Spark's partitioning.

Per partition: a produce rate with a heavy tail (few hot partitions), a sinusoidal
swing around it, and a group that consumes at 85-115 % of the mean produce rate, so
some partitions drain to zero lag while others build a backlog. Optionally the
service misses a stretch of refreshes (a gap), and one partition is added halfway.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from datetime import UTC, datetime

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from lagassign_pipeline.history import history_contract


@dataclass(frozen=True, slots=True)
class SyntheticSpec:
    """Shape of a synthetic history: groups x topics x partitions x snapshots rows."""

    groups: int = 3
    topics_per_group: int = 2
    partitions_per_topic: int = 12
    members_per_group: int = 4
    snapshots: int = 360
    interval_s: float = 10.0
    start: datetime = datetime(2026, 1, 1, tzinfo=UTC)
    seed: int = 7
    cluster: str = "local"
    # (first snapshot, count) of refreshes the service missed, or None.
    gap: tuple[int, int] | None = None
    # The last partition of each group's first topic appears only halfway through.
    late_partition: bool = False

    def __post_init__(self) -> None:
        for name in (
            "groups",
            "topics_per_group",
            "partitions_per_topic",
            "members_per_group",
            "snapshots",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.interval_s <= 0:
            raise ValueError("interval_s must be positive")
        if self.start.tzinfo is None:
            raise ValueError("start must carry a time zone")

    @property
    def rows(self) -> int:
        return self.groups * self.topics_per_group * self.partitions_per_topic * self.snapshots


def synthetic_history(spark: SparkSession, spec: SyntheticSpec) -> DataFrame:
    """The synthetic history rows, in the history schema."""
    snapshots, parts, topics = spec.snapshots, spec.partitions_per_topic, spec.topics_per_group
    ids = spark.range(spec.rows, numPartitions=max(2, spec.rows // 2_000_000))
    k = F.floor(F.col("id") / snapshots)
    coordinates = ids.select(
        (F.col("id") % snapshots).alias("s"),
        (k % parts).cast("int").alias("p"),
        (F.floor(k / parts) % topics).cast("int").alias("t"),
        F.floor(k / (parts * topics)).cast("int").alias("g"),
    )
    seed = F.lit(spec.seed)

    def draw(salt: int) -> Column:
        """A uniform draw in [0, 1) fixed by the seed, the partition and ``salt``."""
        hashed = F.xxhash64(seed, F.lit(salt), F.col("g"), F.col("t"), F.col("p"))
        return F.pmod(hashed, F.lit(1_000_003)) / F.lit(1_000_003.0)

    seconds = F.col("s") * F.lit(spec.interval_s)
    drawn = coordinates.select(
        "*",
        (F.lit(1.0) + F.lit(400.0) * F.pow(draw(1), 3)).alias("rate"),
        (F.lit(0.6) * draw(2)).alias("swing"),
        (F.lit(2 * math.pi) / (F.lit(600.0) + F.lit(3000.0) * draw(3))).alias("omega"),
        (F.lit(2 * math.pi) * draw(4)).alias("phase"),
        (F.lit(0.85) + F.lit(0.3) * draw(5)).alias("consume_share"),
        F.floor(F.lit(100_000.0) + F.lit(1_000_000.0) * draw(6)).alias("end_at_start"),
        (F.lit(120.0) * draw(7)).alias("backlog_seconds"),
    )
    produced = F.col("rate") * seconds + F.col("swing") * F.col("rate") * (
        F.cos(F.col("phase")) - F.cos(F.col("omega") * seconds + F.col("phase"))
    ) / F.col("omega")
    end = (F.col("end_at_start") + F.floor(produced)).cast("long")
    committed_at_start = F.col("end_at_start") - F.floor(F.col("rate") * F.col("backlog_seconds"))
    consumed = F.floor(committed_at_start + F.col("consume_share") * F.col("rate") * seconds)
    committed = F.least(end, consumed.cast("long"))
    member = (F.col("t") * F.lit(parts) + F.col("p")) % F.lit(spec.members_per_group)
    member_tag = F.lower(F.hex(F.pmod(F.xxhash64(seed, F.col("g"), member), F.lit(1 << 32))))
    start_ms = round(spec.start.timestamp() * 1000)
    rows = drawn.select(
        F.timestamp_millis(F.lit(start_ms) + (seconds * F.lit(1000)).cast("long")).alias("ts"),
        F.lit(spec.cluster).alias("cluster"),
        F.format_string("group-%02d", F.col("g")).alias("group"),
        F.format_string("g%02d-topic-%d", F.col("g"), F.col("t")).alias("topic"),
        F.col("p").alias("partition"),
        F.floor(committed_at_start / 2).cast("long").alias("log_start_offset"),
        end.alias("log_end_offset"),
        committed.alias("committed_offset"),
        (end - committed).alias("lag"),
        F.format_string("consumer-%d-%s", member, member_tag).alias("consumer_id"),
        F.format_string("consumer-%d", member).alias("client_id"),
        F.format_string("/127.0.0.%d", member + F.lit(1)).alias("host"),
        F.col("s"),
        F.col("t"),
        F.col("p"),
    )
    if spec.gap is not None:
        first, count = spec.gap
        rows = rows.where((F.col("s") < first) | (F.col("s") >= first + count))
    if spec.late_partition:
        late = (F.col("t") == 0) & (F.col("p") == parts - 1) & (F.col("s") < snapshots // 2)
        rows = rows.where(~late)
    return history_contract(rows)


def write_history(rows: DataFrame, path: str | os.PathLike[str]) -> None:
    """Write history rows as the service does: Parquet under ``date=YYYY-MM-DD/``."""
    (
        rows.withColumn("date", F.date_format("ts", "yyyy-MM-dd"))
        .write.mode("overwrite")
        .partitionBy("date")
        .parquet(os.fspath(path))
    )
