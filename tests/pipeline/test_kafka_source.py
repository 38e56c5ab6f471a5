"""History rows read from a Kafka topic on the real local broker, through Spark's connector."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest
from aiokafka import AIOKafkaProducer  # type: ignore[import-untyped]
from pyspark.sql import SparkSession
from pyspark.testing import assertDataFrameEqual

from harness.broker import LocalKafka
from lagassign_pipeline.kafka_source import read_history_topic
from tests.pipeline.histories import history_frame, history_row

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

ROWS = [
    history_row(0, 100, 90),
    history_row(10, 160, 150, partition=1, consumer=None),
    history_row(20, 220, None, topic="u"),
]


def message(row: dict[str, object], ts: object) -> bytes:
    return json.dumps({**row, "ts": ts}).encode()


async def produce(bootstrap: str, topic: str, values: list[bytes]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, request_timeout_ms=10_000)
    await producer.start()
    try:
        for value in values:
            await asyncio.wait_for(producer.send_and_wait(topic, value), timeout=30)
    finally:
        await producer.stop()


def test_rows_from_a_topic_equal_the_rows_sent(
    spark: SparkSession, kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    topic = kafka_names("history")
    stamp = [r["ts"] for r in ROWS]
    values = [
        message(ROWS[0], round(stamp[0].timestamp() * 1000)),
        message(ROWS[1], stamp[1].isoformat().replace("+00:00", "Z")),
        b"not json",  # skipped
        json.dumps({"group": "g"}).encode(),  # no ts, topic, partition, lag: skipped
        message(ROWS[2], stamp[2].isoformat()),
    ]
    asyncio.run(produce(kafka_broker.bootstrap, topic, values))
    rows = read_history_topic(spark, kafka_broker.bootstrap, topic)
    assertDataFrameEqual(rows, history_frame(spark, ROWS))
