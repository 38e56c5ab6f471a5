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
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from harness.poll import eventually_async
from harness.sidecar import SidecarProcess
from tests.client.advice_group import (
    BACKLOG,
    JOIN_DEADLINE_S,
    MIN_GAIN,
    RUN_S,
    advice,
    check_lowered,
    check_one_rebalance,
    land_backlog,
    member_lags,
    one_advised_rebalance,
    started_pair,
)
from tests.client.java_member import JavaMember
from tests.client.member import Membership, Partition, PollLoop
from tests.client.members import NewGroup

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.anyio]

ADVISE_EVERY_S = 0.5


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
    new_group: NewGroup,
    sidecar: SidecarProcess,
    advise_every_s: float | None,
    *,
    cooperative: bool = False,
    backlog: int = BACKLOG,
) -> AsyncIterator[SkewedPair]:
    """Two Java members of ``new_group`` on a topic committed at 0, Stable in one
    generation, then ``backlog`` records on each partition of the first member, seen by
    the sidecar; the members are stopped on the way out."""
    group = new_group.group
    topic = new_group.names("topic")

    def java(name: str, joins: Membership) -> JavaMember:
        loop = PollLoop(commit=False, advise_every_s=advise_every_s)
        return new_group.java(name, joins, loop, cooperative=cooperative)

    async with started_pair(new_group.membership([topic], sidecar.url), sidecar, java) as members:
        await eventually_async(
            lambda: len({m.generation() for m in members}) == 1,
            JOIN_DEADLINE_S,
            f"{group}'s members in one generation",
            0.5,
        )
        start_generation = members[0].generation()
        assert start_generation is not None
        held_before = {m.name: m.partitions() for m in members}
        worst_before = await land_backlog(
            new_group.bootstrap, sidecar, group, members[0].partitions(), backlog
        )
        yield SkewedPair(group, topic, members, start_generation, held_before, worst_before)


async def test_the_helper_forces_exactly_one_rebalance_that_lowers_the_worst_lag(
    advising_sidecar: SidecarProcess, new_group: NewGroup
) -> None:
    sidecar = advising_sidecar
    async with skewed_pair(new_group, sidecar, ADVISE_EVERY_S) as pair:
        group, members, start_generation = pair.group, pair.members, pair.start_generation

        async def rebalanced() -> bool:
            gens = {m.generation() for m in members}
            return len(gens) == 1 and gens != {start_generation}

        await one_advised_rebalance(rebalanced)

        end_generation = members[0].generation()
        assert end_generation is not None
        assert end_generation == members[1].generation()
        check_one_rebalance(end_generation - start_generation)
        assert sum(m.enforced for m in members) == 1
        await check_lowered(sidecar, group, pair.worst_before)


async def test_without_the_helper_the_skew_stays(
    advising_sidecar: SidecarProcess, new_group: NewGroup
) -> None:
    sidecar = advising_sidecar
    async with skewed_pair(new_group, sidecar, None) as pair:
        group, members, worst_before = pair.group, pair.members, pair.worst_before

        async def advised() -> dict[str, Any] | None:
            body = await asyncio.to_thread(advice, sidecar, group)
            return body if body["advised"] else None

        body = await eventually_async(advised, RUN_S, f"advice to rebalance {group}", 0.5)
        assert body["lag_source"] == "kafka"
        assert body["worst_lag_now"] == worst_before
        assert body["worst_lag_after"] <= (1 - MIN_GAIN) * worst_before
        await asyncio.sleep(2 * ADVISE_EVERY_S + 2)
        assert {m.generation() for m in members} == {pair.start_generation}
        lags = await asyncio.to_thread(member_lags, sidecar, group)
        assert max(lags.values()) == worst_before
        assert (await asyncio.to_thread(advice, sidecar, group))["advised"] is True
