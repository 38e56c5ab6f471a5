"""An advised rebalance on the cooperative protocol: real broker, a sidecar just started,
real Java consumers with ``CooperativeLagAssignor`` and the ``RebalanceAdvisor``.

The same stable two-member group as ``test_advice_kafka`` (four partitions, committed
at 0, members that consume but never commit), now with records trickling onto every
partition the whole run. A backlog lands on one member's partitions; the advised
rebalance then moves only what changes:

- the partitions that keep their owner are never revoked, as the members' own
  rebalance listeners report;
- they are consumed on through the rebalance: records of each of them are read
  between the enforced rebalance and the group's last assignment, and every offset is
  read exactly once (never re-read from the committed offset, as a revoked and
  reassigned partition is);
- the partitions that move are read again from the committed offset by their new
  member, which shows that the exactly-once check can fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer  # type: ignore[import-untyped]

from harness.poll import eventually_async
from harness.sidecar import SidecarProcess
from tests.client.advice_group import PARTITIONS, advice
from tests.client.member import Partition
from tests.client.members import NewGroup
from tests.client.test_advice_kafka import ADVISE_EVERY_S, skewed_pair

pytestmark = [pytest.mark.kafka, pytest.mark.java, pytest.mark.anyio]

# A record on every partition every 20 ms: a rebalance lasts at least one JoinGroup and
# SyncGroup round per phase (a few hundred ms here), so a partition that keeps being
# fetched through it shows several records inside it, while one that pauses shows none.
TRICKLE_EVERY_S = 0.02
RUN_S = 60.0
AFTER_S = 3.0
# The trickle raises every partition's lag by up to 50 a second, and the members never
# commit. With a backlog B on each of the hot member's two partitions and x trickled onto
# every partition, the rebalance lowers the worst member's lag from 2B + 2x to B + 2x, a
# gain of B / (2B + 2x): at least MIN_GAIN (0.3) only while x <= B * 2 / 3. The advice
# comes at the earliest COOLDOWN_S (10 s) after the group formed and after HOLD_S (2 s);
# with a 20 s cooldown, B = 1000 left as little as 13 s of trickle, which a slow start used
# up. B = 10,000 leaves over two minutes, more than RUN_S.
HOT_BACKLOG = 10_000


async def trickle(bootstrap: str, topic: str, stop: asyncio.Event) -> int:
    """One record on every partition every TRICKLE_EVERY_S until ``stop``, at most RUN_S.

    One producer for the whole run (a producer per round would take longer to start than
    the round lasts).
    """
    rounds = 0
    deadline = time.monotonic() + RUN_S + 30.0
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=0)
    await producer.start()
    try:
        while not stop.is_set() and time.monotonic() < deadline:
            sent = [
                await producer.send(topic, f"{p}-{rounds}".encode(), partition=p)
                for p in range(PARTITIONS)
            ]
            for future in sent:
                await future
            rounds += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), TRICKLE_EVERY_S)
    finally:
        await producer.stop()
    return rounds


def consumed(events: list[dict[str, Any]]) -> list[tuple[int, Partition, int]]:
    """(ts, partition, offset) of every record a member read, repeats included."""
    return [
        (e["ts"], (t, p), o) for e in events if e["event"] == "consumed" for t, p, o in e["records"]
    ]


async def test_an_advised_cooperative_rebalance_never_pauses_the_partitions_that_stay(
    advising_sidecar: SidecarProcess, new_group: NewGroup
) -> None:
    sidecar = advising_sidecar
    stop = asyncio.Event()
    async with skewed_pair(
        new_group, sidecar, ADVISE_EVERY_S, cooperative=True, backlog=HOT_BACKLOG
    ) as pair:
        group, topic, members, before = pair.group, pair.topic, pair.members, pair.held_before

        async def moved() -> bool:
            gens = {m.generation() for m in members}
            held = [m.partitions() for m in members]
            return (
                len(gens) == 1
                and gens != {pair.start_generation}
                and sorted(len(h) for h in held) == [2, 2]
                and set().union(*held) == {(topic, p) for p in range(PARTITIONS)}
                and held != list(before.values())
            )

        # From here on the lag only grows, and the advice (held 2 s) comes after.
        producing = asyncio.create_task(trickle(new_group.bootstrap, topic, stop))
        try:
            await eventually_async(moved, RUN_S, "an advised cooperative rebalance", 0.5)
            await asyncio.sleep(AFTER_S)  # records keep coming after the last assignment
        except TimeoutError as error:
            last_advice = await asyncio.to_thread(advice, sidecar, group)
            raise AssertionError(f"{error}; the sidecar's last advice: {last_advice}") from error
        finally:
            stop.set()
        after = {m.name: m.partitions() for m in members}
        stopped_ts = time.time() * 1000
        assert await producing > 0

    kept = {name: before[name] & after[name] for name in before}
    kept_all = set().union(*kept.values())
    moved_all = {(topic, p) for p in range(PARTITIONS)} - kept_all
    assert kept_all, (before, after)
    assert moved_all, (before, after)
    assert sum(m.enforced for m in members) == 1
    # Every assignment came from the sidecar's cooperative answer, none from the fallback.
    notes = [e["note"] for m in members for e in m.events() if e["event"] == "assigned"]
    assert notes
    assert all(n is not None and n["by"] == "sidecar" for n in notes), notes

    # Leaving the group at the end revokes everything: only events before that count.
    events = {
        m.name: [e for e in m.events() if e.get("ts", stopped_ts + 1) <= stopped_ts]
        for m in members
    }
    enforced_ts = min(e["ts"] for es in events.values() for e in es if e["event"] == "enforced")
    last_assigned_ts = max(
        e["ts"] for es in events.values() for e in es if e["event"] == "assigned"
    )
    for name, es in events.items():
        revoked = {(t, p) for e in es if e["event"] == "revoked" for t, p in e["partitions"]}
        assert not revoked & kept[name], f"{name} was told to revoke {revoked & kept[name]}"
        records = consumed(es)
        for tp in kept[name]:
            during = [
                o for ts, p, o in records if p == tp and enforced_ts <= ts <= last_assigned_ts
            ]
            window_ms = last_assigned_ts - enforced_ts
            assert during, f"{name} read nothing of {tp} during the rebalance ({window_ms} ms)"
            repeats = [o for o, n in Counter(o for _, p, o in records if p == tp).items() if n > 1]
            assert not repeats, f"{name} read offsets {repeats[:5]} of {tp} twice"
    reread = Counter((p, o) for es in events.values() for _, p, o in consumed(es) if p in moved_all)
    assert any(n > 1 for n in reread.values()), "no moved partition was read again"
