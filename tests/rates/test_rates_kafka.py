"""Time lag and produce rate on the real broker, from a cold start.

A new group is committed at the log end of a new topic; the sidecar starts;
then a producer writes a known steady rate to partition 0 while the group stays
paused (its committed offsets fixed). Time lag must grow one second per second
and match the time since production began within one refresh interval and the
refresh's own length (``TIME_TOLERANCE_S``); once the window holds production
only, the produce rate must be the known rate within 5 %. After the producer
stops and a real consumer of the group drains and commits, time lag is 0.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

import httpx
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition  # type: ignore[import-untyped]

from harness.broker import LocalKafka
from lagassign.http.app import create_app
from lagassign.settings import Settings
from tests.rates.backlog import committed_backlog
from tests.service.serving import served

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

RATE = 100  # records per second on partition 0
BATCH_S = 0.1
WINDOW_S = 30.0
PRODUCE_S = 44.0
INTERVAL_S = 0.5
TIME_TOLERANCE_S = INTERVAL_S + 0.5
DEADLINE_S = 60.0


async def produce_steadily(bootstrap: str, topic: str, started: list[float]) -> int:
    """``RATE`` records/s to partition 0 for ``PRODUCE_S``, paced on an absolute schedule."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=0)
    await producer.start()
    sent = 0
    try:
        per_batch = round(RATE * BATCH_S)
        begin = time.monotonic()
        started.append(time.time())
        for batch in range(round(PRODUCE_S / BATCH_S)):
            delay = begin + batch * BATCH_S - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            futures = [await producer.send(topic, b"x", partition=0) for _ in range(per_batch)]
            await asyncio.gather(*futures)
            sent += per_batch
    finally:
        await producer.stop()
    return sent


async def drain(bootstrap: str, group: str, topic: str, end: int) -> None:
    """A consumer of the group reads partition 0 up to ``end`` and commits it."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False
    )
    await consumer.start()
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        deadline = time.monotonic() + DEADLINE_S
        while await consumer.position(tp) < end and time.monotonic() < deadline:
            await consumer.getmany(tp, timeout_ms=500, max_records=10_000)
        await consumer.commit({tp: await consumer.position(tp)})
    finally:
        await consumer.stop()


async def until(check: Callable[[], Awaitable[bool]], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        if await check():
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"not within {DEADLINE_S} s: {what}")


async def partition(client: httpx.AsyncClient, group: str, number: int) -> dict[str, Any]:
    report = (await client.get(f"/groups/{group}")).json()
    rows = [p for p in report["partitions"] if p["partition"] == number]
    assert rows, report
    return {"as_of": report["freshness"]["as_of"], **rows[0]}


def seconds(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


async def test_paused_group_time_lag_grows_one_second_per_second_then_drains(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    bootstrap, topic, group = await committed_backlog(kafka_broker, kafka_names, [10, 10], [10, 10])
    settings = Settings.from_environ(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
            "LAGASSIGN_REFRESH_INTERVAL_S": str(INTERVAL_S),
            "LAGASSIGN_GROUPS": group,
            "LAGASSIGN_RATE_WINDOW_S": str(WINDOW_S),
            "LAGASSIGN_RATE_WINDOW_POINTS": str(round(WINDOW_S / INTERVAL_S)),
            "LAGASSIGN_LAG_MODEL": "load",
            "LAGASSIGN_LOAD_HORIZON_S": "10",
        }
    )
    app = create_app(settings, kafka=True)
    async with served(app) as client:

        async def seen() -> bool:
            response = await client.get(f"/groups/{group}")
            return response.status_code == 200 and len(response.json()["partitions"]) == 2

        await until(seen, "the group's first snapshot")
        cold = await partition(client, group, 0)
        assert cold["lag"] == 0
        assert cold["lag_seconds"] == 0.0

        started: list[float] = []
        producing = asyncio.create_task(produce_steadily(bootstrap, topic, started))
        await asyncio.sleep(8)
        first = await partition(client, group, 0)
        await asyncio.sleep(10)
        second = await partition(client, group, 0)
        idle = await partition(client, group, 1)

        # Grows one second per second (the committed offset's moment stays put).
        for row in (first, second):
            assert row["lag"] > 0
            assert row["lag_seconds"] is not None
            since_start = seconds(row["as_of"]) - started[0]
            assert abs(row["lag_seconds"] - since_start) <= TIME_TOLERANCE_S, (row, since_start)
        growth = (second["lag_seconds"] - first["lag_seconds"]) / (
            seconds(second["as_of"]) - seconds(first["as_of"])
        )
        assert abs(growth - 1.0) <= 0.01, growth
        assert idle["lag_seconds"] == 0.0
        assert idle["produce_rate"] == 0.0

        # The load model: lag + produce rate x 10 s, reported as kafka-load.
        answer = (
            await client.post(
                "/assign",
                json={
                    "group_id": group,
                    "members": [{"member_id": "m0", "topics": [topic]}],
                    "partitions": {topic: 2},
                },
            )
        ).json()
        assert answer["lag"]["source"] == "kafka-load"
        assert answer["stats"]["max_lag"] >= second["lag"] + 0.9 * RATE * 10

        # Once the window holds production only: the known rate, and for time lag only a
        # lower bound, the window's span (lagassign.lagview.time_lag), never above the truth.
        await asyncio.sleep(WINDOW_S + 3 - 18)
        steady = await partition(client, group, 0)
        assert steady["produce_rate"] == pytest.approx(RATE, rel=0.05), steady
        assert steady["consume_rate"] == 0.0
        assert steady["lag_seconds"] is not None, steady
        truth = seconds(steady["as_of"]) - started[0]
        assert WINDOW_S - 2 * INTERVAL_S <= steady["lag_seconds"] <= truth, (steady, truth)
        metrics = (await client.get("/metrics")).text
        assert f'lagassign_group_produce_rate{{group="{group}"}}' in metrics

        sent = await producing
        await drain(bootstrap, group, topic, 10 + sent)

        async def drained() -> bool:
            row = await partition(client, group, 0)
            return bool(row["lag"] == 0 and row["lag_seconds"] == 0.0)

        await until(drained, "time lag back to 0 after the drain")
        done = await partition(client, group, 0)
        assert done["consume_rate"] is not None
        assert done["consume_rate"] > 0
        page = (await client.get(f"/groups/{group}", headers={"Accept": "text/html"})).text
        assert "lag_seconds" in page
