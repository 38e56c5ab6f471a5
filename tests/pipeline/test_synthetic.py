"""The seeded synthetic history: deterministic, the exact schema, offsets that make sense."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.testing import assertDataFrameEqual

from lagassign_pipeline.history import HISTORY_SCHEMA, read_history
from lagassign_pipeline.synthetic import SyntheticSpec, synthetic_history, write_history

pytestmark = pytest.mark.spark

SPEC = SyntheticSpec(
    groups=2,
    topics_per_group=2,
    partitions_per_topic=3,
    members_per_group=2,
    snapshots=40,
    gap=(10, 5),
    late_partition=True,
)


def test_the_same_seed_gives_the_same_rows_and_another_seed_others(spark: SparkSession) -> None:
    first = synthetic_history(spark, SPEC)
    assert [(f.name, f.dataType) for f in first.schema.fields] == [
        (f.name, f.dataType) for f in HISTORY_SCHEMA.fields
    ]
    assertDataFrameEqual(first, synthetic_history(spark, SPEC))
    other = synthetic_history(spark, replace(SPEC, seed=8))
    assert first.exceptAll(other).count() > 0


def test_offsets_grow_lag_is_their_difference_and_events_happen(spark: SparkSession) -> None:
    rows = synthetic_history(spark, SPEC)
    in_order = Window.partitionBy("cluster", "group", "topic", "partition").orderBy("ts")
    checked = rows.select(
        "*",
        (F.col("log_end_offset") - F.lag("log_end_offset").over(in_order)).alias("end_step"),
        (F.col("committed_offset") - F.lag("committed_offset").over(in_order)).alias("step"),
    )
    bad = checked.where(
        (F.col("end_step") < 0)
        | (F.col("step") < 0)
        | (F.col("lag") != F.col("log_end_offset") - F.col("committed_offset"))
        | (F.col("lag") < 0)
        | (F.col("log_start_offset") > F.col("committed_offset"))
    )
    assert bad.count() == 0
    snapshots = rows.select("ts").distinct().count()
    assert snapshots == SPEC.snapshots - 5  # the gap
    per_partition = {
        (r["group"], r["topic"], r["partition"]): r["n"]
        for r in rows.groupBy("group", "topic", "partition").agg(F.count("*").alias("n")).collect()
    }
    late = {k: n for k, n in per_partition.items() if n != snapshots}
    assert late == {("group-00", "g00-topic-0", 2): 20, ("group-01", "g01-topic-0", 2): 20}
    members = rows.groupBy("group").agg(F.count_distinct("consumer_id").alias("n")).collect()
    assert {r["n"] for r in members} == {SPEC.members_per_group}


def test_written_history_reads_back(spark: SparkSession, tmp_path: Path) -> None:
    rows = synthetic_history(spark, SPEC)
    write_history(rows, tmp_path)
    assert sorted(p.name for p in tmp_path.glob("date=*")) == ["date=2026-01-01"]
    assertDataFrameEqual(read_history(spark, tmp_path), rows)
