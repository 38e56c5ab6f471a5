"""The lag history rows the service records (DESIGN.md section 6), read from Parquet.

One row per refresh, group and partition. :func:`history_contract` is the schema
contract every input path ends in: the columns below, in this order, with these
types, whatever the source wrote (a ``date=YYYY-MM-DD`` partition column is dropped;
an epoch-milliseconds ``ts`` becomes a timestamp).
"""

from __future__ import annotations

import os
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


def has_history(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` holds at least one Parquet file (hidden and temporary files aside)."""
    root = Path(path)
    if not root.is_dir():
        return False
    return any(
        not any(part.startswith((".", "_")) for part in found.relative_to(root).parts)
        for found in root.rglob("*.parquet")
    )


def _timestamp(rows: DataFrame, name: str) -> Column:
    if isinstance(rows.schema[name].dataType, IntegralType):
        return F.timestamp_millis(F.col(name))
    return F.col(name).cast(TimestampType())
