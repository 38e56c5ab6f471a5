"""The Spring Kafka recipe of the Java shim's README, on a real broker with the real
sidecar: two consumers built as the recipe builds them (``DefaultKafkaConsumerFactory``
with the shim's properties, a ``ConcurrentMessageListenerContainer`` with a batch
listener that Spring commits after each batch, ``LagAssignorMetrics`` bound to a
Micrometer registry), started cold on a new group.

The group settles on the sidecar's answer (every member's note says so), every record
produced is consumed, the group's lag falls to 0 as Spring commits, and the leader's
Micrometer registry counts its decision.
"""

from __future__ import annotations

import asyncio

import pytest

from harness.builders import create_topic, produce
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess
from tests.client.group_waits import consumed_all, settled
from tests.client.members import NewGroup

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.anyio]

PARTITIONS = 4
PER_PARTITION = [40, 30, 20, 10]


async def test_the_spring_kafka_recipe_is_assigned_by_the_sidecar(
    sidecar: SidecarProcess, new_group: NewGroup
) -> None:
    group = new_group.group
    topic = new_group.names("topic")
    await create_topic(new_group.bootstrap, topic, PARTITIONS)
    await produce(new_group.bootstrap, topic, PER_PARTITION)
    produced = {(topic, p, o) for p, n in enumerate(PER_PARTITION) for o in range(n)}
    joins = new_group.membership([topic], sidecar.url)
    members = [
        new_group.java(f"{new_group.names('member')}-{i}", joins, spring=True) for i in range(2)
    ]
    try:
        for m in members:
            await m.start()
        held = await settled(members, {(topic, p) for p in range(PARTITIONS)})
        assert sorted(len(h) for h in held.values()) == [2, 2]
        assert [(m.note() or {}).get("by") for m in members] == ["sidecar", "sidecar"]
        await consumed_all(members, produced)

        async def committed() -> bool:
            report = await asyncio.to_thread(sidecar.group, group)
            return report is not None and sum(m["lag"] for m in report["members"]) == 0

        await eventually_async(committed, 60.0, f"{group}'s lag committed down to 0", 0.5)
    finally:
        for m in members:
            await m.stop()
    counted = [
        e["meter_decisions"] for m in members for e in m.events() if e["event"] == "assigned"
    ]
    assert max(counted) >= 1, counted  # the leader's registry saw its decision
