"""A mixed group of Go (franz-go), Java and Python (aiokafka) consumers, each kind
leading in turn, on the real broker through the real sidecar.

The leader's kind starts first and holds every partition on its own; the other two
join, and the coordinator keeps the first member as leader. The group then holds the
sidecar's answer: every member's note says so, the sidecar sees its last answer live,
only the leader counted answers, and the worst member's lag is at most half of range's.
Nobody commits, so the lag the sidecar sees stays the backlog.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mixed_group import MixedGroups, joined_after

from harness.poll import eventually_async
from tests.client.test_group_kafka import range_member_lags

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.anyio]

KINDS = ("go", "java", "aiokafka")
MATCH_DEADLINE_S = 60.0


@pytest.mark.parametrize("leader", KINDS)
async def test_a_go_java_python_group_holds_the_sidecars_answer_whoever_leads(
    leader: str, mixed_groups: MixedGroups
) -> None:
    group = await mixed_groups.skewed("group", topics=3)
    members = mixed_groups.members(KINDS, group)

    async def matching() -> dict[str, Any] | None:
        report = await asyncio.to_thread(mixed_groups.sidecar.group, group.group)
        if report is not None and report["live_vs_last_answer"]["status"] == "matches":
            return report
        return None

    async with joined_after(leader, members, set(group.lags)) as joined:
        report = await eventually_async(
            matching,
            MATCH_DEADLINE_S,
            f"the live assignment of {group.group} is the last answer",
            0.5,
        )

    sidecar_note = {"by": "sidecar", "strategy": "balanced", "reason": None}
    assert joined.notes == dict.fromkeys(KINDS, sidecar_note)
    # The first member leads every rebalance: alone, then with the others.
    assert joined.led[leader] >= 2, joined.led
    assert [joined.led[kind] for kind in KINDS if kind != leader] == [0, 0], joined.led
    live_lags = {m: sum(group.lags[p] for p in partitions) for m, partitions in joined.held.items()}
    assert report["last_answers"][0]["max_lag"] == max(live_lags.values())
    member_ids = [m["member_id"] for m in report["members"]]
    ranged = range_member_lags(member_ids, group.topics, group.lags)
    assert max(live_lags.values()) * 2 <= max(ranged.values()), (live_lags, ranged)
