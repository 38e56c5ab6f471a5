"""The Python rebalance advisor end to end: real broker, a sidecar just started, real
aiokafka and kafka-python consumers with the shim.

The same stable two-member group as ``test_advice_kafka`` (four partitions, committed
at 0, members that consume but never commit, so the skew lasts), with the sidecar's
short advice settings (hold 2 s, cooldown 10 s, share 30 %). A backlog lands on one
member's partitions; with ``RebalanceAdvisor`` in both members' poll loops exactly one
rebalance follows, asked for by the generation's leader only, and the worst member's
lag falls by at least the share. The run is bounded, and its rebalances stay within
run length / cooldown + 1.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import pytest

from harness.broker import LocalKafka
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess
from tests.client.advice_group import (
    BACKLOG,
    COOLDOWN_S,
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
from tests.client.python_members import AiokafkaMember, KafkaPythonMember

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

ADVISE_EVERY_S = 0.5
PythonMember = AiokafkaMember | KafkaPythonMember


def assignments(members: Sequence[PythonMember]) -> int:
    """Assignments the members received so far, together (one each per rebalance)."""
    return sum(m.assignor.leadership.assignments for m in members)


@pytest.mark.parametrize("kind", ["aiokafka", "kafka-python"])
async def test_the_python_advisor_asks_for_exactly_one_rebalance_that_lowers_the_worst_lag(
    kind: str,
    kafka_broker: LocalKafka,
    advising_sidecar: SidecarProcess,
    kafka_names: Callable[[str], str],
) -> None:
    sidecar = advising_sidecar
    group = GROUP_PREFIX + kafka_names("group")
    topic = kafka_names("topic")
    await committed_topic(kafka_broker.bootstrap, group, topic)
    make = AiokafkaMember if kind == "aiokafka" else KafkaPythonMember
    members: list[PythonMember] = [
        make(
            f"{kafka_names('member')}-{i}",
            kafka_broker.bootstrap,
            group,
            [topic],
            sidecar.url,
            1.5,
            commit=False,
            advise_every_s=ADVISE_EVERY_S,
        )
        for i in range(2)
    ]
    try:
        for m in members:
            await m.start()
        await stable_pair(sidecar, group, members)
        leaders = [m for m in members if m.assignor.leadership.led_last]
        assert len(leaders) == 1, "exactly one member led the first rebalance"
        start_assignments = assignments(members)
        worst_before = await land_backlog(
            kafka_broker.bootstrap, sidecar, group, members[0].partitions(), BACKLOG
        )

        async def rebalanced() -> bool:
            return assignments(members) >= start_assignments + 2 and sorted(
                len(m.partitions()) for m in members
            ) == [2, 2]

        await eventually_async(rebalanced, RUN_S, "an advised rebalance", 0.5)
        await asyncio.sleep(WATCH_S)  # a bounded watch: no storm

        rebalances = (assignments(members) - start_assignments) / len(members)
        assert rebalances == 1, f"{rebalances} rebalances after the backlog"
        assert rebalances <= (RUN_S + WATCH_S) / COOLDOWN_S + 1
        asked = [m.advisor.enforced for m in members if m.advisor is not None]
        assert sorted(asked) == [0, 1], asked
        asking = next(m for m in members if m.advisor is not None and m.advisor.enforced)
        assert asking is leaders[0], "only the generation's leader asks"
        follower = next(m for m in members if m is not asking)
        assert follower.advisor is not None
        assert follower.advisor.requests == 0, "a follower never asks the sidecar"
        lags = await asyncio.to_thread(member_lags, sidecar, group)
        assert max(lags.values()) <= (1 - MIN_GAIN) * worst_before, (worst_before, lags)
        assert await asyncio.to_thread(advised_rebalances, sidecar, group) == 1.0
        assert (await asyncio.to_thread(advice, sidecar, group))["advised"] is False
    finally:
        for m in members:
            await m.stop()
