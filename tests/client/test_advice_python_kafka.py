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

from collections.abc import Callable, Sequence

import pytest

from harness.sidecar import SidecarProcess
from tests.client.advice_group import (
    BACKLOG,
    check_lowered,
    check_one_rebalance,
    land_backlog,
    one_advised_rebalance,
    started_pair,
)
from tests.client.member import Membership, PollLoop
from tests.client.members import NewGroup
from tests.client.python_members import AiokafkaMember, KafkaPythonMember

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

ADVISE_EVERY_S = 0.5
PythonMember = AiokafkaMember | KafkaPythonMember


def assignments(members: Sequence[PythonMember]) -> int:
    """Assignments the members received so far, together (one each per rebalance)."""
    return sum(m.assignor.leadership.assignments for m in members)


def advising(kind: str) -> Callable[[str, Membership], PythonMember]:
    """A member of ``kind`` (``aiokafka``, ``kafka-python``) with its advisor, never
    committing."""
    make = AiokafkaMember if kind == "aiokafka" else KafkaPythonMember
    loop = PollLoop(commit=False, advise_every_s=ADVISE_EVERY_S)
    return lambda name, joins: make(name, joins, loop)


@pytest.mark.parametrize("kind", ["aiokafka", "kafka-python"])
async def test_the_python_advisor_asks_for_exactly_one_rebalance_that_lowers_the_worst_lag(
    kind: str, advising_sidecar: SidecarProcess, new_group: NewGroup
) -> None:
    sidecar = advising_sidecar
    group = new_group.group
    joins = new_group.membership([new_group.names("topic")], sidecar.url)
    async with started_pair(joins, sidecar, advising(kind)) as members:
        leaders = [m for m in members if m.assignor.leadership.led_last]
        assert len(leaders) == 1, "exactly one member led the first rebalance"
        start_assignments = assignments(members)
        worst_before = await land_backlog(
            new_group.bootstrap, sidecar, group, members[0].partitions(), BACKLOG
        )

        async def rebalanced() -> bool:
            return assignments(members) >= start_assignments + 2 and sorted(
                len(m.partitions()) for m in members
            ) == [2, 2]

        await one_advised_rebalance(rebalanced)

        check_one_rebalance((assignments(members) - start_assignments) / len(members))
        asked = [m.advisor.enforced for m in members if m.advisor is not None]
        assert sorted(asked) == [0, 1], asked
        asking = next(m for m in members if m.advisor is not None and m.advisor.enforced)
        assert asking is leaders[0], "only the generation's leader asks"
        follower = next(m for m in members if m is not asking)
        assert follower.advisor is not None
        assert follower.advisor.requests == 0, "a follower never asks the sidecar"
        await check_lowered(sidecar, group, worst_before)
