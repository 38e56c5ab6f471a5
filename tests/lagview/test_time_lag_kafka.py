"""On the real broker, from a cold start: a stalled group's time lag is never unknown.

A new group commits offset 10 on both partitions of a new topic; 30 more
records land on partition 0 and nobody consumes. The sidecar starts with a
10 s rate window: past it, the window cannot interpolate the time lag, yet
``lagassign_group_lag_seconds_at_least`` is there and keeps growing (and
``lagassign_group_lag_seconds_max``, the group's worst, counts it), /groups
gives partition 0 a time lag (the window's span, "at least" on the page) and
counts it in the group's worst. A second sidecar (a restart) starts the bound at the
timestamp of the first unconsumed record: no lower than the first one's, at once.
A backlog whose records carry a timestamp an hour old is an hour behind from a cold
sidecar's first refresh.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import httpx
import pytest
from aiokafka import AIOKafkaProducer  # type: ignore[import-untyped]

from harness.broker import LocalKafka
from harness.builders import commit, create_topic
from harness.poll import eventually_async
from lagassign.http.app import create_app
from lagassign.settings import Settings
from tests.rates.backlog import committed_backlog
from tests.service.serving import served

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

WINDOW_S = 10.0
INTERVAL_S = 0.5
DEADLINE_S = 60.0


def gauge(metrics: str, name: str, group: str) -> float | None:
    found = re.search(rf'^{name}{{group="{re.escape(group)}"}} (\S+)$', metrics, re.M)
    return None if found is None else float(found.group(1))


async def floor_of(client: httpx.AsyncClient, group: str) -> float | None:
    return gauge((await client.get("/metrics")).text, "lagassign_group_lag_seconds_at_least", group)


async def worst_counts_every_partition(client: httpx.AsyncClient, group: str) -> float:
    """``lagassign_group_lag_seconds_max`` of one scrape: there, and at least its floor."""
    text = (await client.get("/metrics")).text
    worst = gauge(text, "lagassign_group_lag_seconds_max", group)
    floor = gauge(text, "lagassign_group_lag_seconds_at_least", group)
    assert worst is not None, text
    assert floor is not None, text
    assert worst >= floor
    return worst


def settings_for(bootstrap: str, group: str) -> Settings:
    return Settings.from_environ(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
            "LAGASSIGN_REFRESH_INTERVAL_S": str(INTERVAL_S),
            "LAGASSIGN_GROUPS": group,
            "LAGASSIGN_RATE_WINDOW_S": str(WINDOW_S),
            "LAGASSIGN_RATE_WINDOW_POINTS": str(round(WINDOW_S / INTERVAL_S)),
        }
    )


async def test_a_stalled_group_keeps_a_growing_time_lag_past_the_window_and_a_restart(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    bootstrap, _, group = await committed_backlog(kafka_broker, kafka_names, [40, 10], [10, 10])

    app = create_app(settings_for(bootstrap, group), kafka=True)
    async with served(app) as client:

        async def past_the_window() -> float | None:
            value = await floor_of(client, group)
            return value if value is not None and value > WINDOW_S + 3 else None

        floor = await eventually_async(past_the_window, DEADLINE_S, "a floor past the window")
        report = (await client.get(f"/groups/{group}")).json()
        p0, p1 = sorted(report["partitions"], key=lambda p: p["partition"])
        assert p0["lag"] == 30
        assert p1["lag"] == 0
        # The window alone says nothing past its reach; /groups gives its span instead.
        assert p0["lag_seconds"] is not None
        assert p0["lag_seconds"] >= WINDOW_S - 2 * INTERVAL_S
        assert p1["lag_seconds"] == 0.0
        assert report["rates"]["lag_seconds_unknown"] == 0
        assert report["rates"]["lag_seconds_max"] == p0["lag_seconds"]
        page = (await client.get(f"/groups/{group}", headers={"accept": "text/html"})).text
        assert "at least " in page
        assert floor > WINDOW_S
        # The window has no time lag for partition 0 now; the group's worst still counts it.
        assert await worst_counts_every_partition(client, group) > WINDOW_S

    restarted = create_app(settings_for(bootstrap, group), kafka=True)
    async with served(restarted) as client:

        async def present() -> tuple[float] | None:
            value = await floor_of(client, group)
            return None if value is None else (value,)

        (first,) = await eventually_async(present, DEADLINE_S, "the floor after a restart")
        # From its first snapshot on, the records' age: the restart lost nothing.
        assert first >= floor

        async def grown() -> float | None:
            value = await floor_of(client, group)
            return value if value is not None and value >= first + 2 else None

        await eventually_async(grown, DEADLINE_S, "the floor growing after a restart")


async def test_a_backlog_an_hour_old_is_an_hour_behind_from_the_first_refresh(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    bootstrap = kafka_broker.bootstrap
    topic, group = kafka_names("t"), kafka_names("g")
    await create_topic(bootstrap, topic, 1)
    an_hour_ago_ms = round(time.time() * 1000) - 3_600_000
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    try:
        for _ in range(10):
            await producer.send_and_wait(topic, b"x", partition=0, timestamp_ms=an_hour_ago_ms)
    finally:
        await producer.stop()
    await commit(bootstrap, group, {(topic, 0): 2})

    app = create_app(settings_for(bootstrap, group), kafka=True)
    async with served(app) as client:

        async def behind() -> float | None:
            value = await floor_of(client, group)
            return value if value is not None and value > 0 else None

        floor = await eventually_async(behind, DEADLINE_S, "a floor from the records' time")
        assert 3_600 <= floor <= 3_600 + DEADLINE_S
        # A cold sidecar's window knows nothing of the backlog; the group's worst does.
        assert await worst_counts_every_partition(client, group) >= 3_600
