"""History rows from a Kafka topic instead of Parquet: one JSON object per message.

Each message value is a JSON object with the history columns (``docs/history.md``);
``ts`` is epoch milliseconds or an ISO 8601 timestamp with a zone. The topic is read
once, from the earliest to the latest offset (a batch read, not a stream). A message
that is not JSON or lacks ``ts``, ``group``, ``topic``, ``partition`` or ``lag`` is
skipped.

Spark reads Kafka through its connector, fetched from Maven Central at session
start (``spark.jars.packages``). Maven Central serves no connector built for Spark
4.3 yet, and the 4.1 and 4.2 connectors depend on token-provider releases it does
not serve, so the default is the 4.0.0 connector: its whole dependency set is there,
and it reads with Spark 4.3 (tested against the local broker). ``--kafka-package``
picks another.
"""

from __future__ import annotations

from collections.abc import Mapping

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from lagassign_pipeline.history import HISTORY_SCHEMA, history_contract

KAFKA_PACKAGES = ("org.apache.spark:spark-sql-kafka-0-10_2.13:4.0.0",)

MESSAGE_SCHEMA = StructType(
    [
        StructField(f.name, StringType() if f.name == "ts" else f.dataType, True)
        for f in HISTORY_SCHEMA.fields
    ]
)
_REQUIRED = ("ts", "group", "topic", "partition", "lag")


def read_history_topic(
    spark: SparkSession,
    bootstrap: str,
    topic: str,
    options: Mapping[str, str] | None = None,
) -> DataFrame:
    """All history rows in ``topic`` (``kafka.*`` ``options`` pass to the Kafka client)."""
    messages = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("endingOffsets", "latest")
        .options(**dict(options or {}))
        .load()
    )
    return history_from_messages(messages)


def history_from_messages(messages: DataFrame) -> DataFrame:
    """Parse Kafka messages (a binary ``value`` column) into history rows."""
    parsed = messages.select(
        F.from_json(F.col("value").cast("string"), MESSAGE_SCHEMA).alias("m")
    ).select("m.*")
    ts = (
        F.when(F.col("ts").rlike(r"^[0-9]+$"), F.timestamp_millis(F.col("ts").cast("long")))
        .otherwise(F.try_to_timestamp(F.col("ts")))
        .alias("ts")
    )
    rows = parsed.select(
        ts,
        F.coalesce(F.col("cluster"), F.lit("")).alias("cluster"),
        *(f.name for f in HISTORY_SCHEMA.fields[2:]),
    )
    complete = F.lit(True)
    for name in _REQUIRED:
        complete = complete & F.col(name).isNotNull()
    return history_contract(rows.where(complete))
