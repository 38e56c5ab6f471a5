"""On the real broker, cold: a record's timestamp is read whatever codec its producer used.

A producer compresses its batches as the application configured it (franz-go
compresses with snappy by default, many Java producers with lz4 or zstd). The time
lag of a stalled partition starts from the timestamp of its first unconsumed record
(:mod:`lagassign.lagview.kafka.record_times`), so the sidecar must read every codec
Kafka has. Each codec gets a new topic whose records, written by confluent-kafka
(librdkafka), carry a timestamp an hour old; the reader is asked for the record at
offset 2 with nothing read before.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from confluent_kafka import Producer

from harness.broker import LocalKafka
from harness.builders import create_topic
from lagassign.lagview.kafka.record_times import record_timestamps

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]
RECORDS = 5
READ_S = 20.0


def produce_an_hour_ago(bootstrap: str, topic: str, codec: str) -> int:
    """RECORDS records on partition 0, compressed with ``codec``; their timestamp (ms)."""
    an_hour_ago_ms = round(time.time() * 1000) - 3_600_000
    producer = Producer(
        {"bootstrap.servers": bootstrap, "compression.type": codec, "linger.ms": 50}
    )
    for i in range(RECORDS):
        producer.produce(topic, value=b"record %d " % i * 20, partition=0, timestamp=an_hour_ago_ms)
    assert producer.flush(30) == 0, "the records were not all sent"
    return an_hour_ago_ms


@pytest.mark.parametrize("codec", CODECS)
async def test_the_first_unconsumed_records_timestamp_is_read_in_every_codec(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str], codec: str
) -> None:
    bootstrap = kafka_broker.bootstrap
    topic = kafka_names(f"t-{codec}")
    await create_topic(bootstrap, topic, 1)
    written_ms = produce_an_hour_ago(bootstrap, topic, codec)
    found = await record_timestamps({"bootstrap_servers": bootstrap}, {(topic, 0): 2}, READ_S)
    assert found == {(topic, 0): written_ms}
