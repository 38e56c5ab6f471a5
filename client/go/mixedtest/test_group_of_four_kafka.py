"""A Go group of four and a Python (aiokafka) group of four on the same skewed backlog,
side by side on the real broker through the real sidecar: the worst Go member's lag is
no more than the worst Python member's. Both groups are committed at 0 and never
commit further, so the lag the sidecar sees stays the backlog."""

from __future__ import annotations

import pytest
from mixed_group import MixedGroups

from tests.client.group_waits import settled
from tests.client.member import Member
from tests.client.members import started

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

MEMBERS = 4


async def test_a_go_group_of_four_is_as_balanced_as_a_python_group_of_four(
    mixed_groups: MixedGroups,
) -> None:
    go_group = await mixed_groups.skewed("go", topics=3)
    python_group = await mixed_groups.beside("python", go_group)
    lags = go_group.lags
    go_members: list[Member] = [mixed_groups.go(f"go-{i}", go_group) for i in range(MEMBERS)]
    python_members: list[Member] = [
        mixed_groups.aiokafka(f"aiokafka-{i}", python_group) for i in range(MEMBERS)
    ]
    async with started([*go_members, *python_members]) as members:
        go_held = await settled(go_members, set(lags))
        python_held = await settled(python_members, set(lags))
        notes = [m.note() for m in members]

    assert notes == [{"by": "sidecar", "strategy": "balanced", "reason": None}] * (2 * MEMBERS)
    go_worst = max(sum(lags[p] for p in held) for held in go_held.values())
    python_worst = max(sum(lags[p] for p in held) for held in python_held.values())
    print(f"worst member's lag: Go {go_worst}, Python {python_worst}, of {sum(lags.values())}")
    assert go_worst <= python_worst, (go_held, python_held)
