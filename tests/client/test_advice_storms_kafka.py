"""No rebalance storms, and no advice on lag that cannot be trusted: real broker, a
sidecar just started, real aiokafka consumers with the shim and ``RebalanceAdvisor``.

- Swinging load: every few seconds the backlog is cleared (records deleted up to the
  end) and a new one lands on the partitions of the other member, so a rebalance
  would pay again and again. Over a bounded run the advisors ask for a rebalance at
  least once and at most run length / cooldown + 1 times, never twice within a
  cooldown, and every asked rebalance happens (one may take two generations when a
  member rejoins late).
- Kafka down (a broker of the test's own, stopped after the backlog lands, before the
  hold time passes, and started again at the end): the advice stays "not advised" and
  says why, and nobody asks for a rebalance.
- Sidecar unreachable (stopped after the backlog lands, before the hold time passes):
  the leader's advisor asks for nothing and logs one WARNING for the whole outage.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import httpx
import pytest

from harness.broker import LocalKafka
from harness.builders import delete_records, produce
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess
from tests.client.advice_group import (
    COOLDOWN_S,
    PARTITIONS,
    advice,
    land_backlog,
    start_advising_sidecar,
    started_pair,
)
from tests.client.backlog import GROUP_PREFIX
from tests.client.member import Membership
from tests.client.members import NewGroup
from tests.client.python_members import PythonMember
from tests.client.test_advice_python_kafka import advising, assignments

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

HOLD_S = 1.0
SWING_RUN_S = 40.0
PHASE_S = 4.0
BURST = 500
OUTAGE_HOLD_S = 6.0
OUTAGE_S = 15.0
# Requests to a sidecar that is down, each refused, that make one WARNING between them.
TRIES_DOWN = 10


@pytest.fixture
def swing_sidecar(kafka_broker: LocalKafka, tmp_path: Path) -> Iterator[SidecarProcess]:
    log = tmp_path / "swing.log"
    with start_advising_sidecar(kafka_broker.bootstrap, log, hold_s=HOLD_S) as sidecar:
        yield sidecar


async def test_swinging_load_rebalances_at_most_once_per_cooldown(
    swing_sidecar: SidecarProcess, new_group: NewGroup
) -> None:
    sidecar = swing_sidecar
    bootstrap = new_group.bootstrap
    topic = new_group.names("topic")
    joins = new_group.membership([topic], sidecar.url)
    async with started_pair(joins, sidecar, advising("aiokafka")) as members:
        start = assignments(members)
        ends = [0] * PARTITIONS
        # When the advisors asked for a rebalance. Counted from their requests, not from
        # the members' assignments: under load one asked rebalance can take two
        # generations (a member that rejoins late makes a second one seconds after).
        asked_at: list[float] = []
        seen = 0
        started = time.monotonic()
        phase = 0
        while time.monotonic() - started < SWING_RUN_S:
            hot = members[phase % 2].partitions()
            if hot:
                # Clear every backlog, then a new one on the other member's partitions.
                await delete_records(bootstrap, topic, dict(enumerate(ends)))
                counts = [BURST if (topic, p) in hot else 0 for p in range(PARTITIONS)]
                await produce(bootstrap, topic, counts)
                ends = [e + c for e, c in zip(ends, counts, strict=True)]
            phase += 1
            phase_end = time.monotonic() + PHASE_S
            while time.monotonic() < min(phase_end, started + SWING_RUN_S):
                now_asked = enforced(members)
                asked_at.extend([time.monotonic()] * (now_asked - seen))
                seen = now_asked
                await asyncio.sleep(0.25)
        rebalances = (assignments(members) - start) // len(members)
        asked = enforced(members)

    assert phase >= SWING_RUN_S / PHASE_S - 1, "the load swung all run long"
    assert asked >= 1, "the advice was acted on at least once"
    assert asked <= SWING_RUN_S / COOLDOWN_S + 1, f"{asked} rebalances asked"
    gaps = [b - a for a, b in itertools.pairwise(asked_at)]
    # The cooldown runs from the refresh that sees the rebalance (0.5 s refreshes).
    assert all(g >= COOLDOWN_S - 1.5 for g in gaps), gaps
    # Every asked rebalance happened (one asked may take more than one generation).
    assert rebalances >= asked, (asked, rebalances)


def enforced(members: Sequence[PythonMember]) -> int:
    """The rebalances the members' advisors have asked for so far."""
    return sum(m.advisor.enforced for m in members if m.advisor is not None)


async def test_no_advice_while_kafka_is_down(
    kafka_outage_broker: LocalKafka, kafka_names: Callable[[str], str], tmp_path: Path
) -> None:
    broker = kafka_outage_broker
    sidecar = start_advising_sidecar(
        broker.bootstrap, tmp_path / "outage.log", hold_s=OUTAGE_HOLD_S
    )
    group = GROUP_PREFIX + kafka_names("group")
    joins = Membership(broker.bootstrap, group, [kafka_names("topic")], sidecar.url)
    try:
        async with started_pair(joins, sidecar, advising("aiokafka")) as members:
            start = assignments(members)
            await land_backlog(broker.bootstrap, sidecar, group, members[0].partitions(), BURST)
            broker.stop()
            reasons: set[str] = set()
            deadline = time.monotonic() + OUTAGE_S
            while time.monotonic() < deadline:
                body = await asyncio.to_thread(advice, sidecar, group)
                assert body["advised"] is False, body
                reasons.add(body["reason"])
                await asyncio.sleep(0.5)
            assert any("Kafka is unreachable" in r or "stale" in r for r in reasons), reasons
            assert all(m.advisor is not None and m.advisor.enforced == 0 for m in members)
            assert assignments(members) == start
            # Back up, so the members leave the group cleanly (aiokafka's stop() without a
            # broker is cancelled mid-way).
            await asyncio.to_thread(broker.start)
    finally:
        sidecar.stop()


async def test_an_unreachable_sidecar_changes_nothing_and_is_logged_once(
    new_group: NewGroup, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bootstrap = new_group.bootstrap
    sidecar = start_advising_sidecar(bootstrap, tmp_path / "unreachable.log", hold_s=OUTAGE_HOLD_S)
    joins = new_group.membership([new_group.names("topic")], sidecar.url)
    try:
        with caplog.at_level(logging.INFO, logger="lagassign_client"):
            async with started_pair(joins, sidecar, advising("aiokafka")) as members:
                start = assignments(members)
                await land_backlog(
                    bootstrap, sidecar, new_group.group, members[0].partitions(), BURST
                )
                sidecar.stop()
                with pytest.raises(httpx.HTTPError):
                    httpx.get(f"{sidecar.url}/health", timeout=2.0)
                leader = next(m for m in members if m.assignor.leadership.led_last)
                advisor = leader.advisor
                assert advisor is not None
                down_from = advisor.requests
                await eventually_async(
                    lambda: advisor.requests >= down_from + TRIES_DOWN,
                    OUTAGE_S,
                    f"the leader keeps asking a sidecar that is down ({TRIES_DOWN} times)",
                    0.5,
                )
                assert advisor.enforced == 0
                assert advisor.warnings == 1
                warnings = [
                    r
                    for r in caplog.records
                    if r.levelno == logging.WARNING
                    and "cannot read the rebalance advice" in r.getMessage()
                ]
                assert len(warnings) == 1, [r.getMessage() for r in warnings]
                assert assignments(members) == start
    finally:
        sidecar.stop()
