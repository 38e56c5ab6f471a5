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

import pytest
from mixed_group import MixedGroups, joined_after, revoked

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.anyio]

KINDS = ("go", "java")


@pytest.mark.parametrize("leader", KINDS)
async def test_a_cooperative_go_java_group_moves_only_what_changes_whoever_leads(
    leader: str, mixed_groups: MixedGroups
) -> None:
    group = await mixed_groups.skewed("group", topics=2)
    members = mixed_groups.members(KINDS, group, cooperative=True)
    async with joined_after(leader, members, set(group.lags)) as joined:
        taken = revoked(members[leader])

    follower = next(kind for kind in KINDS if kind != leader)
    sidecar_note = {"by": "sidecar", "strategy": "balanced", "reason": None}
    assert joined.notes == dict.fromkeys(KINDS, sidecar_note)
    assert joined.led[leader] >= 2, joined.led
    assert joined.led[follower] == 0, joined.led
    kept = joined.held[members[leader].name]
    moved = joined.held[members[follower].name]
    assert moved, joined.held
    assert not any(taken[p] for p in kept), (taken, kept)
    assert all(taken[p] == 1 for p in moved), (taken, moved)
