"""Rebalance advice end to end: real broker, a sidecar just started, real Java consumers.

A stable two-member group on one four-partition topic, committed at 0 with no
records (no lag: balanced at start). Then a backlog of 1000 records lands on each
partition of one member, and the members do not commit, so the skew lasts. The
sidecar runs with short advice settings (hold 2 s, cooldown 10 s, share 30 %):

- with the Java ``RebalanceAdvisor`` in the members' poll loops, exactly one
  rebalance follows, forced by the generation's leader, and the worst member's lag
  falls by at least the share; the run is bounded and its rebalances stay within
  run length / cooldown + 1;
- without it, the sidecar advises the same rebalance but nothing happens: the
  assignment and the skew stay.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.broker import LocalKafka
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess
from tests.client.advice_group import (
    BACKLOG,
    COOLDOWN_S,
    JOIN_DEADLINE_S,
    MIN_GAIN,
    RUN_S,
    WATCH_S,
    advice,
    advised_rebalances,
    committed_topic,
    land_backlog,
    member_lags,
    stable_pair,
)
from tests.client.backlog import GROUP_PREFIX
from tests.client.java_member import JavaMember
from tests.client.member import Partition

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.anyio]

ADVISE_MS = 500


async def stable_group(sidecar: SidecarProcess, group: str, members: list[JavaMember]) -> None:
    """Both members hold two partitions each in one generation, and the sidecar sees them
    with no lag."""
    for m in members:
        await m.start()
    await stable_pair(sidecar, group, members)
    await eventually_async(
        lambda: len({m.generation() for m in members}) == 1,
        JOIN_DEADLINE_S,
        f"{group}'s members in one generation",
        0.5,
    )


@dataclass(frozen=True)
class SkewedPair:
    """Two Java members that never commit, Stable in ``start_generation`` on ``topic``,
    and a backlog on the partitions the first one held (``held_before``)."""

    group: str
    topic: str
    members: list[JavaMember]
    start_generation: int
    held_before: dict[str, set[Partition]]
    worst_before: int


@contextlib.asynccontextmanager
async def skewed_pair(
    kafka_broker: LocalKafka,
    sidecar: SidecarProcess,
    kafka_names: Callable[[str], str],
    classpath: str,
    tmp_path: Path,
    advise_ms: int | None,
    *,
    cooperative: bool = False,
    backlog: int = BACKLOG,
) -> AsyncIterator[SkewedPair]:
    """A new group of two Java members on a topic committed at 0, Stable, then ``backlog``
    records on each partition of the first member, seen by the sidecar; the members are
    stopped on the way out."""
    group = GROUP_PREFIX + kafka_names("group")
    topic = kafka_names("topic")
    await committed_topic(kafka_broker.bootstrap, group, topic)
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
            cooperative=cooperative,
        )
        for i in range(2)
    ]
    try:
        await stable_group(sidecar, group, members)
        start_generation = members[0].generation()
        assert start_generation is not None
        held_before = {m.name: m.partitions() for m in members}
        worst_before = await land_backlog(
            kafka_broker.bootstrap, sidecar, group, members[0].partitions(), backlog
        )
        yield SkewedPair(group, topic, members, start_generation, held_before, worst_before)
    finally:
        for m in members:
            await m.stop()


async def test_the_helper_forces_exactly_one_rebalance_that_lowers_the_worst_lag(
    kafka_broker: LocalKafka,
    advising_sidecar: SidecarProcess,
    kafka_names: Callable[[str], str],
    java_classpath: str,
    tmp_path: Path,
) -> None:
    sidecar = advising_sidecar
    async with skewed_pair(
        kafka_broker, sidecar, kafka_names, java_classpath, tmp_path, ADVISE_MS
    ) as pair:
        group, members, start_generation = pair.group, pair.members, pair.start_generation

        async def rebalanced() -> bool:
            gens = {m.generation() for m in members}
            return len(gens) == 1 and gens != {start_generation}

        await eventually_async(rebalanced, RUN_S, "an advised rebalance", 0.5)
        await asyncio.sleep(WATCH_S)  # a bounded watch: no storm

        end_generation = members[0].generation()
        assert end_generation is not None
        assert end_generation == members[1].generation()
        rebalances = end_generation - start_generation
        assert rebalances == 1, f"{rebalances} rebalances after the backlog"
        assert rebalances <= (RUN_S + WATCH_S) / COOLDOWN_S + 1
        assert sum(m.enforced for m in members) == 1
        lags = await asyncio.to_thread(member_lags, sidecar, group)
        worst_after = max(lags.values())
        assert worst_after <= (1 - MIN_GAIN) * pair.worst_before, (pair.worst_before, lags)
        assert await asyncio.to_thread(advised_rebalances, sidecar, group) == 1.0
        now = await asyncio.to_thread(advice, sidecar, group)
        assert now["advised"] is False


async def test_without_the_helper_the_skew_stays(
    kafka_broker: LocalKafka,
    advising_sidecar: SidecarProcess,
    kafka_names: Callable[[str], str],
    java_classpath: str,
    tmp_path: Path,
) -> None:
    sidecar = advising_sidecar
    async with skewed_pair(
        kafka_broker, sidecar, kafka_names, java_classpath, tmp_path, None
    ) as pair:
        group, members, worst_before = pair.group, pair.members, pair.worst_before

        async def advised() -> dict[str, Any] | None:
            body = await asyncio.to_thread(advice, sidecar, group)
            return body if body["advised"] else None

        body = await eventually_async(advised, RUN_S, f"advice to rebalance {group}", 0.5)
        assert body["lag_source"] == "kafka"
        assert body["worst_lag_now"] == worst_before
        assert body["worst_lag_after"] <= (1 - MIN_GAIN) * worst_before
        await asyncio.sleep(2 * ADVISE_MS / 1000 + 2)
        assert {m.generation() for m in members} == {pair.start_generation}
        lags = await asyncio.to_thread(member_lags, sidecar, group)
        assert max(lags.values()) == worst_before
        assert (await asyncio.to_thread(advice, sidecar, group))["advised"] is True
