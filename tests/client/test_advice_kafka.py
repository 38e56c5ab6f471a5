"""Rebalance advice end to end: real broker, a sidecar just started, real Java consumers.

A stable two-member group on one four-partition topic, committed at 0 with no
records (no lag: balanced at start). Then a backlog of 1000 records lands on each
partition of one member, and the members do not commit, so the skew lasts. The
sidecar runs with short advice settings (hold 2 s, cooldown 20 s, share 30 %):

- with the Java ``RebalanceAdvisor`` in the members' poll loops, exactly one
  rebalance follows, forced by the generation's leader, and the worst member's lag
  falls by at least the share; the run is bounded and its rebalances stay within
  run length / cooldown + 1;
- without it, the sidecar advises the same rebalance but nothing happens: the
  assignment and the skew stay.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.broker import LocalKafka
from harness.builders import commit, create_topic, produce
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess, start_sidecar
from tests.client.backlog import GROUP_PATTERN, GROUP_PREFIX
from tests.client.members import JavaMember

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.anyio]

PARTITIONS = 4
BACKLOG = 1000
MIN_GAIN = 0.3
HOLD_S = 2.0
COOLDOWN_S = 20.0
ADVISE_MS = 500
RUN_S = 45.0  # after the backlog lands
JOIN_DEADLINE_S = 90.0


@pytest.fixture
def advising_sidecar(kafka_broker: LocalKafka, tmp_path: Path) -> Iterator[SidecarProcess]:
    """A sidecar started for this test with short advice settings."""
    process = start_sidecar(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": kafka_broker.bootstrap,
            "LAGASSIGN_REFRESH_INTERVAL_S": "0.5",
            "LAGASSIGN_GROUP_PATTERN": GROUP_PATTERN,
            "LAGASSIGN_ADVICE_MIN_GAIN": str(MIN_GAIN),
            "LAGASSIGN_ADVICE_HOLD_S": str(HOLD_S),
            "LAGASSIGN_ADVICE_COOLDOWN_S": str(COOLDOWN_S),
            # These tests land each backlog in one burst, which the default drain model
            # would also read as production for its recent span; they are about the
            # advice's hold, cooldown and helpers, so they weigh the backlog alone (the
            # drain model's advice: tests/service/test_advice*.py, tests/rates).
            "LAGASSIGN_LAG_MODEL": "backlog",
        },
        tmp_path / "lagassign.log",
    )
    try:
        yield process
    finally:
        process.stop()


def advice(sidecar: SidecarProcess, group: str) -> dict[str, Any]:
    response = httpx.get(f"{sidecar.url}/groups/{group}/advice", timeout=10.0)
    response.raise_for_status()
    body: dict[str, Any] = response.json()
    return body


def member_lags(sidecar: SidecarProcess, group: str) -> dict[str, int]:
    report = sidecar.group(group)
    assert report is not None
    return {m["member_id"]: m["lag"] for m in report["members"]}


def advised_rebalances(sidecar: SidecarProcess, group: str) -> float:
    text = httpx.get(f"{sidecar.url}/metrics", timeout=10.0).text
    line = f'lagassign_advised_rebalances_total{{group="{group}"}} '
    values = [float(row.removeprefix(line)) for row in text.splitlines() if row.startswith(line)]
    return values[0] if values else 0.0


async def stable_group(sidecar: SidecarProcess, group: str, members: list[JavaMember]) -> None:
    """Both members hold two partitions each, and the sidecar sees them with no lag."""
    for m in members:
        await m.start()

    async def settled() -> bool:
        if sorted(len(m.partitions()) for m in members) != [2, 2]:
            return False
        if len({m.generation() for m in members}) != 1:
            return False
        report = await asyncio.to_thread(sidecar.group, group)
        return (
            report is not None
            and report["header"]["state"] == "Stable"
            and sorted(m["partitions"] for m in report["members"]) == [2, 2]
        )

    await eventually_async(settled, JOIN_DEADLINE_S, f"{group} stable with two members", 0.5)


async def land_backlog(
    bootstrap: str, sidecar: SidecarProcess, group: str, hot: JavaMember, backlog: int = BACKLOG
) -> int:
    """Write ``backlog`` records to each partition ``hot`` holds; the worst member lag once seen."""
    counts = [0] * PARTITIONS
    for _, p in hot.partitions():
        counts[p] = backlog
    topic = next(iter(hot.partitions()))[0]
    await produce(bootstrap, topic, counts)
    worst = sum(counts)

    async def seen() -> bool:
        lags = await asyncio.to_thread(member_lags, sidecar, group)
        return max(lags.values(), default=0) == worst

    await eventually_async(seen, 60.0, f"the sidecar sees the backlog of {group}", 0.5)
    return worst


async def prepare(
    kafka_broker: LocalKafka,
    sidecar: SidecarProcess,
    kafka_names: Callable[[str], str],
    classpath: str,
    tmp_path: Path,
    advise_ms: int | None,
) -> tuple[str, list[JavaMember]]:
    group = GROUP_PREFIX + kafka_names("group")
    topic = kafka_names("topic")
    await create_topic(kafka_broker.bootstrap, topic, PARTITIONS)
    await commit(kafka_broker.bootstrap, group, {(topic, p): 0 for p in range(PARTITIONS)})
    members = [
        JavaMember(
            f"{kafka_names('member')}-{i}",
            kafka_broker.bootstrap,
            group,
            [topic],
            sidecar.url,
            1.5,
            classpath,
            tmp_path,
            commit=False,
            advise_ms=advise_ms,
        )
        for i in range(2)
    ]
    return group, members


async def test_the_helper_forces_exactly_one_rebalance_that_lowers_the_worst_lag(
    kafka_broker: LocalKafka,
    advising_sidecar: SidecarProcess,
    kafka_names: Callable[[str], str],
    java_classpath: str,
    tmp_path: Path,
) -> None:
    sidecar = advising_sidecar
    group, members = await prepare(
        kafka_broker, sidecar, kafka_names, java_classpath, tmp_path, ADVISE_MS
    )
    try:
        await stable_group(sidecar, group, members)
        start_generation = members[0].generation()
        assert start_generation is not None
        worst_before = await land_backlog(kafka_broker.bootstrap, sidecar, group, members[0])
        started = time.monotonic()

        async def rebalanced() -> bool:
            gens = {m.generation() for m in members}
            return len(gens) == 1 and gens != {start_generation}

        await eventually_async(rebalanced, RUN_S, "an advised rebalance", 0.5)
        remaining = RUN_S - (time.monotonic() - started)
        await asyncio.sleep(max(0.0, remaining))  # the rest of the bounded run: no storm

        end_generation = members[0].generation()
        assert end_generation is not None
        assert end_generation == members[1].generation()
        rebalances = end_generation - start_generation
        assert rebalances == 1, f"{rebalances} rebalances after the backlog"
        assert rebalances <= RUN_S / COOLDOWN_S + 1
        assert sum(m.enforced for m in members) == 1
        lags = await asyncio.to_thread(member_lags, sidecar, group)
        worst_after = max(lags.values())
        assert worst_after <= (1 - MIN_GAIN) * worst_before, (worst_before, lags)
        assert await asyncio.to_thread(advised_rebalances, sidecar, group) == 1.0
        now = await asyncio.to_thread(advice, sidecar, group)
        assert now["advised"] is False
    finally:
        for m in members:
            await m.stop()


async def test_without_the_helper_the_skew_stays(
    kafka_broker: LocalKafka,
    advising_sidecar: SidecarProcess,
    kafka_names: Callable[[str], str],
    java_classpath: str,
    tmp_path: Path,
) -> None:
    sidecar = advising_sidecar
    group, members = await prepare(
        kafka_broker, sidecar, kafka_names, java_classpath, tmp_path, None
    )
    try:
        await stable_group(sidecar, group, members)
        start_generation = members[0].generation()
        worst_before = await land_backlog(kafka_broker.bootstrap, sidecar, group, members[0])

        async def advised() -> dict[str, Any] | None:
            body = await asyncio.to_thread(advice, sidecar, group)
            return body if body["advised"] else None

        body = await eventually_async(advised, RUN_S, f"advice to rebalance {group}", 0.5)
        assert body["lag_source"] == "kafka"
        assert body["worst_lag_now"] == worst_before
        assert body["worst_lag_after"] <= (1 - MIN_GAIN) * worst_before
        await asyncio.sleep(2 * ADVISE_MS / 1000 + 2)
        assert {m.generation() for m in members} == {start_generation}
        lags = await asyncio.to_thread(member_lags, sidecar, group)
        assert max(lags.values()) == worst_before
        assert (await asyncio.to_thread(advice, sidecar, group))["advised"] is True
    finally:
        for m in members:
            await m.stop()
