"""A new group on a backlog (issue 15), with real consumers, a real broker and a real
``lagassign serve`` started for this module (cold: it has never seen the group).

Three topics of four partitions; partition 0 of each holds a large backlog, the others a
small one. The group has never committed; its consumers start from the earliest offset
(the sidecar's ``LAGASSIGN_RESET_POLICY=earliest``; the Java shim also sends its
``auto.offset.reset``). The refresh interval is long, so no refresh can land between the
members' joins: whatever lag the answers use was read for ``/assign`` itself. Range gives
the first member partition 0 of every topic; the sidecar must see the backlog from the
group's first rebalance on and spread it as ``balanced`` does on the same lags.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from harness.broker import LocalKafka
from harness.builders import commit, create_topic, produce
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess, start_sidecar
from lagassign.core.model import Member, make_rebalance
from lagassign.core.stats import assignment_stats
from lagassign.core.strategies import run_strategy
from tests.client.group_waits import settled
from tests.client.member import NO_COMMIT, Partition
from tests.client.members import NewGroup, started
from tests.client.python_members import AiokafkaMember

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

# Per topic: partition 0 holds the backlog, the others a little (the figures).
BACKLOG = (6_000, 500, 500, 500)
TOPICS = 3
TIMEOUT_S = 3.0
ANSWERS_DEADLINE_S = 30.0


@pytest.fixture(scope="module")
def cold_sidecar(
    kafka_broker: LocalKafka, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SidecarProcess]:
    """A sidecar that tracks no group until ``/assign`` names it, refreshing every 60 s."""
    with start_sidecar(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": kafka_broker.bootstrap,
            "LAGASSIGN_RESET_POLICY": "earliest",
            "LAGASSIGN_REFRESH_INTERVAL_S": "60",
            # The budget of one on-demand read on a machine shared with other tests.
            "LAGASSIGN_ON_DEMAND_BUDGET_MS": "2000",
        },
        tmp_path_factory.mktemp("cold-sidecar") / "lagassign.log",
    ) as process:
        yield process


async def backlog_on(
    bootstrap: str, topics: Sequence[str], backlog: Sequence[int] = BACKLOG
) -> dict[Partition, int]:
    for topic in topics:
        await create_topic(bootstrap, topic, len(backlog))
        await produce(bootstrap, topic, backlog)
    return {(t, p): n for t in topics for p, n in enumerate(backlog)}


def worst_by_core(strategy: str, members: int, lags: dict[Partition, int]) -> int:
    """The largest member lag the core's ``strategy`` gives ``members`` new members."""
    topics = sorted({t for t, _ in lags})
    rebalance = make_rebalance(
        [Member(member_id=f"m-{i}", topics=tuple(topics)) for i in range(members)],
        {t: len(BACKLOG) for t in topics},
        {t: [lags[(t, p)] for p in range(len(BACKLOG))] for t in topics},
    )
    return assignment_stats(rebalance, run_strategy(strategy, rebalance)).max_lag


def worst_held(held: dict[str, set[Partition]], lags: dict[Partition, int]) -> int:
    return max(sum(lags[p] for p in partitions) for partitions in held.values())


async def answers_of(sidecar: SidecarProcess, group: str, at_least: int) -> list[dict[str, Any]]:
    """The sidecar's answers for ``group``, oldest first, once it has ``at_least``."""

    async def answers() -> list[dict[str, Any]] | None:
        report = await asyncio.to_thread(sidecar.group, group)
        found = list(reversed(report["last_answers"])) if report else []
        return found if len(found) >= at_least else None

    return await eventually_async(answers, ANSWERS_DEADLINE_S, f"{at_least} answers for {group}")


GROUPS = [
    pytest.param(("aiokafka",) * 4, id="aiokafka"),
    pytest.param(("kafka-python",) * 4, id="kafka-python"),
    pytest.param(("java", "aiokafka", "kafka-python", "java"), id="mixed", marks=pytest.mark.java),
]


@pytest.mark.parametrize("kinds", GROUPS)
async def test_a_new_group_on_a_backlog_is_balanced_by_lag_from_its_first_rebalance(
    kinds: tuple[str, ...], cold_sidecar: SidecarProcess, new_group: NewGroup
) -> None:
    topics = new_group.topics(TOPICS)
    lags = await backlog_on(new_group.bootstrap, topics)
    # Nothing is committed: the group's lag stays the whole backlog throughout.
    joins = new_group.membership(topics, cold_sidecar.url, TIMEOUT_S)
    members = new_group.members(kinds, joins, NO_COMMIT)
    async with started(members):
        held = await settled(members, set(lags))
        notes = [m.note() for m in members]
        # Read before any member leaves (a member leaving is one more rebalance).
        answers = await answers_of(cold_sidecar, new_group.group, 1)
    assert notes == [{"by": "sidecar", "strategy": "balanced", "reason": None}] * len(members)

    balanced = worst_by_core("balanced", len(members), lags)
    ranged = worst_by_core("range", len(members), lags)
    assert worst_held(held, lags) == balanced
    assert balanced < ranged

    # Every answer, the first one included, knew the backlog from Kafka.
    assert [a["lag_source"] for a in answers] == ["kafka-drain"] * len(answers)
    first = answers[0]
    assert first["max_lag"] == worst_by_core("balanced", first["members"], lags), answers
    assert answers[-1]["members"] == len(members)
    assert answers[-1]["max_lag"] == balanced


async def test_a_topic_a_running_group_starts_to_read_is_balanced_by_its_backlog(
    cold_sidecar: SidecarProcess, new_group: NewGroup
) -> None:
    """Two members read one topic, committed at its end (no lag); then both subscribe to a
    second topic with a backlog on its first two partitions and no commit: the next answer
    sees that backlog (range would give both hot partitions to one member)."""
    group = new_group.group
    old, new = new_group.names("old"), new_group.names("new")
    old_lags = await backlog_on(new_group.bootstrap, [old])
    await commit(new_group.bootstrap, group, dict(old_lags))
    joins = new_group.membership([old], cold_sidecar.url, TIMEOUT_S)
    members = [AiokafkaMember(f"member-{i}", joins, NO_COMMIT) for i in range(2)]
    async with started(members):
        await settled(members, set(old_lags))
        before = len(await answers_of(cold_sidecar, group, 1))

        new_lags = await backlog_on(new_group.bootstrap, [new], (3_000, 3_000, 500, 500))
        for member in members:
            member.consumer.subscribe([old, new], listener=member._owned)
        held = await settled(members, set(old_lags) | set(new_lags))
        answers = await answers_of(cold_sidecar, group, before + 1)

    after = answers[before:]
    assert [a["lag_source"] for a in after] == ["kafka-drain"] * len(after)
    # The old topic has no lag left; the new one's backlog is all there is to balance.
    lags = {**{p: 0 for p in old_lags}, **new_lags}
    balanced = worst_by_core("balanced", 2, lags)
    assert after[-1]["max_lag"] == balanced
    assert worst_held(held, lags) == balanced
    assert balanced < worst_by_core("range", 2, lags)
