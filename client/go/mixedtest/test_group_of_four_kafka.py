"""A Go group of four and a Python (aiokafka) group of four on the same skewed backlog,
side by side on the real broker through the real sidecar: the worst Go member's lag is
no more than the worst Python member's. Both groups are committed at 0 and never
commit further, so the lag the sidecar sees stays the backlog."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from go_member import GoMember

from harness.broker import LocalKafka
from harness.builders import commit
from harness.sidecar import SidecarProcess
from tests.client.backlog import GROUP_PREFIX, sidecar_sees, skewed_backlog
from tests.client.members import AiokafkaMember, Member, settled

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

TIMEOUT_S = 1.5
MEMBERS = 4


async def test_a_go_group_of_four_is_as_balanced_as_a_python_group_of_four(
    kafka_broker: LocalKafka,
    sidecar: SidecarProcess,
    go_member_program: Path,
    kafka_names: Callable[[str], str],
    tmp_path: Path,
) -> None:
    go_group = GROUP_PREFIX + kafka_names("go")
    python_group = GROUP_PREFIX + kafka_names("python")
    topics = [kafka_names("topic") for _ in range(3)]
    lags = await skewed_backlog(kafka_broker.bootstrap, go_group, topics)
    await commit(kafka_broker.bootstrap, python_group, dict.fromkeys(lags, 0))
    for group in (go_group, python_group):
        await sidecar_sees(sidecar, group, sum(lags.values()))

    common: dict[str, Any] = {
        "bootstrap": kafka_broker.bootstrap,
        "topics": topics,
        "url": sidecar.url,
        "timeout_s": TIMEOUT_S,
    }
    go_members: list[Member] = [
        GoMember(go_member_program, f"go-{i}", group=go_group, log_dir=tmp_path, **common)
        for i in range(MEMBERS)
    ]
    python_members: list[Member] = [
        AiokafkaMember(f"aiokafka-{i}", group=python_group, commit=False, **common)
        for i in range(MEMBERS)
    ]
    try:
        for member in [*go_members, *python_members]:
            await member.start()
        go_held = await settled(go_members, set(lags))
        python_held = await settled(python_members, set(lags))
        notes = [m.note() for m in [*go_members, *python_members]]
    finally:
        for member in [*go_members, *python_members]:
            await member.stop()

    assert notes == [{"by": "sidecar", "strategy": "balanced", "reason": None}] * (2 * MEMBERS)
    go_worst = max(sum(lags[p] for p in held) for held in go_held.values())
    python_worst = max(sum(lags[p] for p in held) for held in python_held.values())
    print(f"worst member's lag: Go {go_worst}, Python {python_worst}, of {sum(lags.values())}")
    assert go_worst <= python_worst, (go_held, python_held)
