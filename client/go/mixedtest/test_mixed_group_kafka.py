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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from go_member import GoMember

from harness.broker import LocalKafka
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess
from tests.client.backlog import GROUP_PREFIX, sidecar_sees, skewed_backlog
from tests.client.members import AiokafkaMember, JavaMember, Member, settled
from tests.client.test_group_kafka import range_member_lags

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.anyio]

TIMEOUT_S = 1.5
KINDS = ("go", "java", "aiokafka")
MATCH_DEADLINE_S = 60.0


def answers(member: Member) -> int:
    """Rebalances the member led on the sidecar's answer."""
    if isinstance(member, GoMember):
        return member.answers()
    if isinstance(member, JavaMember):
        events = [e for e in member.events() if e["event"] == "assigned"]
        return int(events[-1].get("answers") or 0) if events else 0
    assert isinstance(member, AiokafkaMember)
    return member.assignor.answers


@pytest.mark.parametrize("leader", KINDS)
async def test_a_go_java_python_group_holds_the_sidecars_answer_whoever_leads(
    leader: str,
    kafka_broker: LocalKafka,
    sidecar: SidecarProcess,
    java_classpath: str,
    go_member_program: Path,
    kafka_names: Callable[[str], str],
    tmp_path: Path,
) -> None:
    group = GROUP_PREFIX + kafka_names("group")
    topics = [kafka_names("topic") for _ in range(3)]
    lags = await skewed_backlog(kafka_broker.bootstrap, group, topics)
    await sidecar_sees(sidecar, group, sum(lags.values()))

    common: dict[str, Any] = {
        "bootstrap": kafka_broker.bootstrap,
        "group": group,
        "topics": topics,
        "url": sidecar.url,
        "timeout_s": TIMEOUT_S,
    }
    members: dict[str, Member] = {
        "go": GoMember(go_member_program, "go-0", log_dir=tmp_path, **common),
        "java": JavaMember(
            "java-0", classpath=java_classpath, log_dir=tmp_path, commit=False, **common
        ),
        "aiokafka": AiokafkaMember("aiokafka-0", commit=False, **common),
    }
    try:
        await members[leader].start()
        await settled([members[leader]], set(lags))
        for kind in KINDS:
            if kind != leader:
                await members[kind].start()
        held = await settled(list(members.values()), set(lags))
        notes = {kind: m.note() for kind, m in members.items()}
        led = {kind: answers(m) for kind, m in members.items()}

        async def matching() -> dict[str, Any] | None:
            report = await asyncio.to_thread(sidecar.group, group)
            if report is not None and report["live_vs_last_answer"]["status"] == "matches":
                return report
            return None

        report = await eventually_async(
            matching, MATCH_DEADLINE_S, f"the live assignment of {group} is the last answer", 0.5
        )
    finally:
        for member in members.values():
            await member.stop()

    sidecar_note = {"by": "sidecar", "strategy": "balanced", "reason": None}
    assert notes == dict.fromkeys(KINDS, sidecar_note)
    # The first member leads every rebalance: alone, then with the others.
    assert led[leader] >= 2, led
    assert [led[kind] for kind in KINDS if kind != leader] == [0, 0], led
    live_lags = {name: sum(lags[p] for p in partitions) for name, partitions in held.items()}
    assert report["last_answers"][0]["max_lag"] == max(live_lags.values())
    member_ids = [m["member_id"] for m in report["members"]]
    ranged = range_member_lags(member_ids, topics, lags)
    assert max(live_lags.values()) * 2 <= max(ranged.values()), (live_lags, ranged)
