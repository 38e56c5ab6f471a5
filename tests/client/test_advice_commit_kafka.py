"""The documented advisor loop in an application that commits after every batch: real
broker, a sidecar just started, real consumers (Java eager and cooperative, aiokafka,
kafka-python) with the shim and the advisor.

The loop is the one the docs give: poll, process the batch, commit it, then ask the
advisor, last, right before the next poll. Two slow members (10 records a poll, 0.1 s of
work on each batch: about 100 records/s each) share a four-partition topic committed at
0; a backlog of 5,000 records lands on each of one member's partitions, and the sidecar
(hold 2 s, cooldown 10 s, share 30 %) advises a rebalance. The advisor of the
generation's leader asks for it, the group rebalances, and the members go on consuming
and committing. Not one commit is refused through it, and the group's lag goes on falling
after it (commits made in the new generation).

- Java: the loop commits with ``RebalanceAdvisor.commitSync``; on the cooperative
  protocol the consumer returns records of the partitions it keeps while the group
  rebalances and Kafka refuses commits then: the helper leaves them to the next commit
  (counted, printed); eager, nothing is ever left. The listener commits what it revokes.
- aiokafka rebalances in the background, while the application works on a batch: the
  loop processes and commits inside ``SafePoint.batch()``, which holds the revocation
  until the batch is committed (without it, a member's commit was refused with
  ``CommitFailedError``).
- kafka-python rebalances inside ``poll()``: the documented order is all it needs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import pytest

from harness.builders import produce
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess
from tests.client.advice_group import PARTITIONS, member_lags, stable_pair, started_pair
from tests.client.java_member import JavaMember
from tests.client.member import Membership, PollLoop
from tests.client.members import NewGroup
from tests.client.python_members import AiokafkaMember, KafkaPythonMember

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

HOT_BACKLOG = 5_000
MAX_RECORDS = 10
WORK_S = 0.1
ADVISE_EVERY_S = 0.5
RUN_S = 60.0
# What the group must still drain, committed, after the advised rebalance.
DRAINED_AFTER = 200

Member = JavaMember | AiokafkaMember | KafkaPythonMember
KINDS = [
    pytest.param("java", id="java-eager", marks=pytest.mark.java),
    pytest.param("java-cooperative", id="java-cooperative", marks=pytest.mark.java),
    pytest.param("aiokafka", id="aiokafka"),
    pytest.param("kafka-python", id="kafka-python"),
]


def asked(members: Sequence[Member]) -> int:
    """Rebalances the members' advisors asked for, together."""
    total = 0
    for m in members:
        if isinstance(m, JavaMember):
            total += m.enforced
        elif m.advisor is not None:
            total += m.advisor.enforced
    return total


def making(kind: str, new_group: NewGroup) -> Callable[[str, Membership], Member]:
    """Members of ``kind`` in the documented loop: slow batches, each committed, then the
    advisor asked."""

    loop = PollLoop(advise_every_s=ADVISE_EVERY_S, max_records=MAX_RECORDS, work_s=WORK_S)

    def member(name: str, joins: Membership) -> Member:
        if kind.startswith("java"):
            return new_group.java(name, joins, loop, cooperative=kind == "java-cooperative")
        make_python = AiokafkaMember if kind == "aiokafka" else KafkaPythonMember
        return make_python(name, joins, loop)

    return member


@pytest.mark.parametrize("kind", KINDS)
async def test_an_advised_rebalance_refuses_no_commit_of_a_commit_after_batch_loop(
    kind: str, advising_sidecar: SidecarProcess, new_group: NewGroup
) -> None:
    sidecar = advising_sidecar
    group = new_group.group
    topic = new_group.names("topic")
    joins = new_group.membership([topic], sidecar.url)
    async with started_pair(joins, sidecar, making(kind, new_group)) as members:
        counts = [0] * PARTITIONS
        for _, p in members[0].partitions():
            counts[p] = HOT_BACKLOG
        await produce(new_group.bootstrap, topic, counts)

        await eventually_async(lambda: asked(members) >= 1, RUN_S, "an advised rebalance", 0.5)
        await stable_pair(sidecar, group, members, "stable again after the advised rebalance")
        lags = await asyncio.to_thread(member_lags, sidecar, group)
        after_rebalance = sum(lags.values())

        async def drained() -> bool:
            now = await asyncio.to_thread(member_lags, sidecar, group)
            return sum(now.values()) <= after_rebalance - DRAINED_AFTER

        await eventually_async(drained, RUN_S, "commits in the new generation", 0.5)
    assert asked(members) == 1
    failures = {m.name: m.commit_failures for m in members if m.commit_failures}
    assert failures == {}, failures
    deferred = sum(m.deferred_commits for m in members if isinstance(m, JavaMember))
    if kind == "java":
        assert deferred == 0  # eager: the member holds nothing while the group rebalances
    print(f"{kind}: {deferred} commit(s) left to the first one after the rebalance")
