"""Real consumers with the shim, on the real broker, through the real sidecar.

Three topics with a skewed backlog (two hot partitions first in each). The group's
live assignment must be the sidecar's answer, and its largest member lag far below
what Kafka's range assignor gives the same members on the same lags. The members
do not commit here, so the lag the sidecar sees stays the backlog.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from aiokafka.coordinator.assignors.range import RangePartitionAssignor  # type: ignore[import-untyped]
from aiokafka.coordinator.protocol import ConsumerProtocol  # type: ignore[import-untyped]

from harness.poll import eventually_async
from harness.sidecar import SidecarProcess
from tests.client.backlog import sidecar_sees, skewed_backlog
from tests.client.cluster_stub import PartitionsByTopic
from tests.client.group_waits import settled
from tests.client.member import NO_COMMIT, Partition
from tests.client.members import NewGroup, started

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

MATCH_DEADLINE_S = 60.0


def range_member_lags(
    member_ids: Sequence[str], topics: Sequence[str], lags: dict[Partition, int]
) -> dict[str, int]:
    """Member lags under the client library's range assignor, for the same members."""
    counts = {t: sum(1 for (topic, _) in lags if topic == t) for t in topics}
    members = {m: ConsumerProtocol.METADATA(0, list(topics), b"") for m in member_ids}
    given = RangePartitionAssignor.assign(PartitionsByTopic(counts), members)
    return {
        m: sum(lags[(tp.topic, tp.partition)] for tp in a.partitions()) for m, a in given.items()
    }


async def live_matches_last_answer(sidecar: SidecarProcess, group: str) -> dict[str, Any]:
    """The sidecar's report once it says the live assignment is its last answer."""

    async def matching() -> dict[str, Any] | None:
        report = await asyncio.to_thread(sidecar.group, group)
        if report is not None and report["live_vs_last_answer"]["status"] == "matches":
            return report
        return None

    return await eventually_async(
        matching, MATCH_DEADLINE_S, f"the live assignment of {group} is the last answer", 0.5
    )


GROUPS = [
    pytest.param(("aiokafka", "aiokafka", "aiokafka"), id="aiokafka"),
    pytest.param(("java", "java", "java"), id="java", marks=pytest.mark.java),
    pytest.param(("aiokafka", "kafka-python", "java"), id="mixed", marks=pytest.mark.java),
]


@pytest.mark.parametrize("kinds", GROUPS)
async def test_the_live_assignment_is_the_sidecars_answer_and_beats_range(
    kinds: tuple[str, ...], sidecar: SidecarProcess, new_group: NewGroup
) -> None:
    group = new_group.group
    topics = new_group.topics(3)
    lags = await skewed_backlog(new_group.bootstrap, group, topics)
    await sidecar_sees(sidecar, group, sum(lags.values()))

    members = new_group.members(kinds, new_group.membership(topics, sidecar.url), NO_COMMIT)
    async with started(members):
        held = await settled(members, set(lags))
        assert [m.note() for m in members] == [
            {"by": "sidecar", "strategy": "balanced", "reason": None}
        ] * len(members)
        report = await live_matches_last_answer(sidecar, group)

    live_lags = {name: sum(lags[p] for p in partitions) for name, partitions in held.items()}
    member_ids = [m["member_id"] for m in report["members"]]
    assert len(member_ids) == len(members)
    ranged = range_member_lags(member_ids, topics, lags)
    assert sorted(live_lags.values()) == sorted(m["lag"] for m in report["members"])
    assert report["last_answers"][0]["max_lag"] == max(live_lags.values())
    # Far below: range gives one member both hot partitions of every topic.
    assert max(live_lags.values()) * 2 <= max(ranged.values()), (live_lags, ranged)
