"""The lag history rows the service records (``docs/history.md``), read from Parquet.

One row per refresh, group and partition. :func:`history_contract` is the schema
contract every input path ends in: the columns below, in this order, with these
types, whatever the source wrote (a ``date=YYYY-MM-DD`` partition column is dropped;
an epoch-milliseconds ``ts`` becomes a timestamp).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    IntegerType,
    IntegralType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

HISTORY_SCHEMA = StructType(
    [
        StructField("ts", TimestampType(), False),
        StructField("cluster", StringType(), False),
        StructField("group", StringType(), False),
        StructField("topic", StringType(), False),
        StructField("partition", IntegerType(), False),
        StructField("log_start_offset", LongType(), True),
        StructField("log_end_offset", LongType(), True),
        StructField("committed_offset", LongType(), True),
        StructField("lag", LongType(), False),
        StructField("consumer_id", StringType(), True),
        StructField("client_id", StringType(), True),
        StructField("host", StringType(), True),
    ]
)

# The name ending of the sidecar's open (not yet finished) history files.
IN_PROGRESS_SUFFIX = ".parquet.inprogress"

# A partition's identity across the history.
PARTITION_KEY = ("cluster", "group", "topic", "partition")


def history_contract(rows: DataFrame) -> DataFrame:
    """The history columns, in order and typed as :data:`HISTORY_SCHEMA`."""
    return rows.select(
        _timestamp(rows, "ts").alias("ts"),
        *(
            F.col(field.name).cast(field.dataType).alias(field.name)
            for field in HISTORY_SCHEMA.fields[1:]
        ),
    )


def read_history(spark: SparkSession, path: str | os.PathLike[str]) -> DataFrame:
    """Read the Parquet history under ``path`` (``date=YYYY-MM-DD`` directories or flat)."""
    rows = spark.read.parquet(os.fspath(path))
    return history_contract(rows)


@dataclass(frozen=True, slots=True)
class HistoryFiles:
    """What a history directory holds: finished Parquet files and a sidecar's open ones.

    A running sidecar writes each file as a hidden ``.part-….parquet.inprogress`` and
    renames it once finished (every ``LAGASSIGN_HISTORY_ROLL_INTERVAL_S``); readers see
    only the finished ones.
    """

    path: Path
    finished: int
    in_progress: int

    @property
    def readable(self) -> bool:
        return self.finished > 0

    def why_unreadable(self) -> str:
        """The reason the pipeline cannot read this directory, for its error message."""
        if not self.path.is_dir():
            return f"{self.path} does not exist (the sidecar writes it with LAGASSIGN_HISTORY_DIR)"
        if self.in_progress:
            return (
                f"{self.path} holds only {self.in_progress} in-progress file(s) of a running "
                "sidecar and no finished one yet: a file is finished "
                "LAGASSIGN_HISTORY_ROLL_INTERVAL_S after it was opened (default 300 s); wait "
                "for it, or run the sidecar with a shorter interval"
            )
        return f"{self.path} holds no Parquet history file"


def history_files(path: str | os.PathLike[str]) -> HistoryFiles:
    """Count the finished and in-progress history files under ``path``."""
    root = Path(path)
    if not root.is_dir():
        return HistoryFiles(root, 0, 0)
    finished = in_progress = 0
    for found in root.rglob("*"):
        parts = found.relative_to(root).parts
        if found.name.endswith(IN_PROGRESS_SUFFIX):
            in_progress += 1
        elif found.suffix == ".parquet" and not any(p.startswith((".", "_")) for p in parts):
            finished += 1
    return HistoryFiles(root, finished, in_progress)


def has_history(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` holds at least one finished Parquet file (hidden and temporary aside)."""
    return history_files(path).readable


def _timestamp(rows: DataFrame, name: str) -> Column:
    if isinstance(rows.schema[name].dataType, IntegralType):
        return F.timestamp_millis(F.col(name))
    return F.col(name).cast(TimestampType())
