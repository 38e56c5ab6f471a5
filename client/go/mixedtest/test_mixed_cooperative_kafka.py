"""A cooperative group of a Go (franz-go) and a Java member, protocol
``lagassign-cooperative`` (``lagassign.NewCooperative`` and ``CooperativeLagAssignor``),
each kind leading in turn, on the real broker through the real sidecar.

The leader's kind starts first and holds every partition; the other joins. The group
settles on the sidecar's answer (every member's note says so), only the leader counted
answers, and the leader was never made to revoke a partition it kept: only the
partitions that moved to the new member were revoked (the sidecar withheld them, the
leader revoked them, the follow-up rebalance gave them away). Python members cannot
join such a group: their shims are eager.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from go_member import GoMember

from harness.broker import LocalKafka
from harness.sidecar import SidecarProcess
from tests.client.backlog import GROUP_PREFIX, sidecar_sees, skewed_backlog
from tests.client.members import JavaMember, Member, Partition, settled

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.anyio]

TIMEOUT_S = 1.5
KINDS = ("go", "java")


def answers(member: Member) -> int:
    """Rebalances the member led on the sidecar's answer."""
    if isinstance(member, GoMember):
        return member.answers()
    assert isinstance(member, JavaMember)
    events = [e for e in member.events() if e["event"] == "assigned"]
    return int(events[-1].get("answers") or 0) if events else 0


def revoked(member: Member) -> Counter[Partition]:
    """How often each partition was taken from the member."""
    if isinstance(member, GoMember):
        return member.revoked()
    assert isinstance(member, JavaMember)
    taken: Counter[Partition] = Counter()
    for event in member.events():
        if event["event"] == "revoked":
            taken.update((t, p) for t, p in event.get("partitions", []))
    return taken


@pytest.mark.parametrize("leader", KINDS)
async def test_a_cooperative_go_java_group_moves_only_what_changes_whoever_leads(
    leader: str,
    kafka_broker: LocalKafka,
    sidecar: SidecarProcess,
    java_classpath: str,
    go_member_program: Path,
    kafka_names: Callable[[str], str],
    tmp_path: Path,
) -> None:
    group = GROUP_PREFIX + kafka_names("group")
    topics = [kafka_names("topic") for _ in range(2)]
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
        "go": GoMember(go_member_program, "go-0", log_dir=tmp_path, cooperative=True, **common),
        "java": JavaMember(
            "java-0",
            classpath=java_classpath,
            log_dir=tmp_path,
            commit=False,
            cooperative=True,
            **common,
        ),
    }
    follower = next(kind for kind in KINDS if kind != leader)
    try:
        await members[leader].start()
        await settled([members[leader]], set(lags))
        await members[follower].start()
        held = await settled(list(members.values()), set(lags))
        notes = {kind: m.note() for kind, m in members.items()}
        led = {kind: answers(m) for kind, m in members.items()}
        taken = revoked(members[leader])
    finally:
        for member in members.values():
            await member.stop()

    sidecar_note = {"by": "sidecar", "strategy": "balanced", "reason": None}
    assert notes == dict.fromkeys(KINDS, sidecar_note)
    assert led[leader] >= 2, led
    assert led[follower] == 0, led
    kept = held[members[leader].name]
    moved = held[members[follower].name]
    assert moved, held
    assert not any(taken[p] for p in kept), (taken, kept)
    assert all(taken[p] == 1 for p in moved), (taken, moved)
