"""When the first record a group has not consumed was written: its Kafka timestamp.

Used once per stall (:class:`lagassign.lagview.time_lag.StallClock`): when the view
first sees a partition behind at a committed offset, the record at that offset was
appended when the log end passed it, so ``as_of - timestamp`` is how long the
partition has been behind, known at once, also for a backlog older than the sidecar.
(With ``CreateTime`` the timestamp is the producer's clock; a producer that sets old
timestamps on purpose makes it too large, which is why the view keeps the earlier of
this and its own first sighting only when the record is older.)

One group-less consumer per read, opened only when there is something to read:
assigned to the wanted partitions, sought to each committed offset, polled until
every partition gave its first record or the time is up. A partition whose record
is gone (compacted, deleted) gives the next record's timestamp, later, so still a
lower bound; one that gives nothing in time is left out. Never raises for a Kafka
failure.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition  # type: ignore[import-untyped]
from aiokafka.errors import KafkaError  # type: ignore[import-untyped]

log = logging.getLogger(__name__)

TopicPartitionKey = tuple[str, int]
#: At most this many partitions are read in one refresh (the rest wait for the next).
MAX_PARTITIONS_PER_READ = 64


async def record_timestamps(
    client_args: Mapping[str, Any],
    wanted: Mapping[TopicPartitionKey, int],
    timeout_s: float,
) -> dict[TopicPartitionKey, int]:
    """Timestamp (ms) of the first record at or after each wanted offset, where read in time."""
    if not wanted:
        return {}
    found: dict[TopicPartitionKey, int] = {}
    consumer = AIOKafkaConsumer(
        **client_args,
        enable_auto_commit=False,
        # An offset below the log start reads from the log start: a later record, still a bound.
        auto_offset_reset="earliest",
        max_partition_fetch_bytes=64 * 1024,
        fetch_max_wait_ms=100,
    )
    deadline = time.monotonic() + timeout_s
    try:
        async with asyncio.timeout(timeout_s):
            await consumer.start()
            tps = [TopicPartition(t, p) for (t, p) in wanted]
            consumer.assign(tps)
            for tp in tps:
                consumer.seek(tp, wanted[(tp.topic, tp.partition)])
            left = set(tps)
            while left and time.monotonic() < deadline:
                batches = await consumer.getmany(*left, timeout_ms=200, max_records=100)
                for tp, records in batches.items():
                    first = _first_at_or_after(records, wanted[(tp.topic, tp.partition)])
                    if first is not None:
                        found[(tp.topic, tp.partition)] = first
                        left.discard(tp)
                        consumer.pause(tp)
    except (KafkaError, TimeoutError, OSError) as exc:
        log.info("reading the timestamps of %d records failed: %r", len(wanted), exc)
    finally:
        try:
            await consumer.stop()
        except (KafkaError, OSError) as exc:
            log.info("closing the record timestamp reader failed: %r", exc)
    return found


def _first_at_or_after(records: Sequence[Any], offset: int) -> int | None:
    for record in records:
        if record.offset >= offset and record.timestamp is not None and record.timestamp >= 0:
            return int(record.timestamp)
    return None
