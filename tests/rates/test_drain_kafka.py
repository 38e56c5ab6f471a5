"""The drain lag model on the real broker, from a cold sidecar, with production already skewed.

A group fell behind on partitions 0 and 1 of a topic (3,000 and 1,000 records),
while its member keeps up with partitions 2 and 3, where producers write 400 and
20 records/s. A second member joins: the rebalance comes while production is
skewed away from the backlog. The sidecar starts cold (the group's offsets are
committed before it starts); once it has seen the production, ``POST /assign``
weighs each partition by lag + produce rate x the group's horizon: the member
given the 400 records/s partition is not also given the biggest backlog, which
an answer balancing the backlog alone may well do (both 2 and 3 have no lag).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer  # type: ignore[import-untyped]

from harness.broker import LocalKafka
from harness.builders import commit
from harness.poll import eventually_async
from lagassign.http.app import create_app
from lagassign.settings import Settings
from tests.rates.backlog import committed_backlog
from tests.service.serving import served

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

RATES = {2: 400, 3: 20}  # records/s
BATCH_S = 0.1
PRODUCE_AT_MOST_S = 60.0
CAPACITY = 500.0


async def keep_producing(bootstrap: str, topic: str, group: str, stop: asyncio.Event) -> None:
    """``RATES`` to partitions 2 and 3 on an absolute schedule, and the group's member
    keeping up with them (its offsets committed at their ends), until ``stop``."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=0)
    await producer.start()
    ends = dict.fromkeys(RATES, 0)
    try:
        begin = time.monotonic()
        for batch in range(round(PRODUCE_AT_MOST_S / BATCH_S)):
            if stop.is_set():
                return
            delay = begin + batch * BATCH_S - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            for partition, rate in RATES.items():
                count = round(rate * BATCH_S)
                sent = [await producer.send(topic, b"x", partition=partition) for _ in range(count)]
                await asyncio.gather(*sent)
                ends[partition] += count
            await commit(bootstrap, group, {(topic, p): end for p, end in ends.items()})
    finally:
        await producer.stop()


async def test_drain_weights_keep_hot_production_away_from_the_biggest_backlog(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    bootstrap, topic, group = await committed_backlog(
        kafka_broker, kafka_names, [3000, 1000, 0, 0], [0, 0, 0, 0]
    )
    settings = Settings.from_environ(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
            "LAGASSIGN_REFRESH_INTERVAL_S": "0.5",
            "LAGASSIGN_GROUPS": group,
            "LAGASSIGN_LAG_MODEL": "drain",
            "LAGASSIGN_MEMBER_CAPACITY": str(CAPACITY),
        }
    )
    stop = asyncio.Event()
    producing = asyncio.create_task(keep_producing(bootstrap, topic, group, stop))
    try:
        async with served(create_app(settings, kafka=True)) as client:

            async def hot_rate_seen() -> dict[str, Any] | None:
                response = await client.get(f"/groups/{group}")
                if response.status_code != 200:
                    return None
                rows = {p["partition"]: p for p in response.json()["partitions"]}
                rate = (rows.get(2) or {}).get("produce_rate")
                return rows if rate is not None and rate > 100 else None

            seen = await eventually_async(hot_rate_seen, 40, "the hot partition's produce rate")
            hot_rate = seen[2]["produce_rate"]
            request = {
                "group_id": group,
                "members": [
                    {"member_id": "member-a", "topics": [topic]},
                    {"member_id": "member-b", "topics": [topic]},
                ],
                "partitions": {topic: 4},
            }
            answer = (await client.post("/assign", json=request)).json()
    finally:
        stop.set()
        await producing

    lag = answer["lag"]
    assert lag["source"] == "kafka-drain", lag
    flow = lag["flow"]
    assert flow["capacity_source"] == "setting"
    assert flow["member_capacity"] == CAPACITY
    assert flow["unknown_rates"] == 0
    assert not flow["overrun"]
    # 4,000 records (and what the lagging partitions gained) over 1,000 - 420 records/s
    # to spare: under 10 s, so the floor
    assert flow["horizon_s"] == 10.0
    owner = {
        p: member for member, topics in answer["assignment"].items() for p in topics.get(topic, [])
    }
    assert sorted(owner) == [0, 1, 2, 3]
    assert owner[2] != owner[0], answer["assignment"]
    # The hot partition weighs about its produce rate x 10 s more than its lag (none): the
    # rate the sidecar saw, which a loaded machine's producer may keep below 400/s.
    assert answer["stats"]["member_lag"][owner[2]] >= 0.8 * hot_rate * 10, (hot_rate, answer)
