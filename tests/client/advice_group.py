"""What the real-broker advice tests share: a sidecar with short advice settings, a
four-partition topic committed at 0 for a group of two, the group Stable, a backlog
on one member's partitions, and the sidecar's answers about the group."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import httpx

from harness.builders import commit, create_topic, produce
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess, start_sidecar
from tests.client.backlog import GROUP_PATTERN
from tests.client.group_waits import seen_stable
from tests.client.member import Member, Membership, Partition

PARTITIONS = 4
MIN_GAIN = 0.3
HOLD_S = 2.0
COOLDOWN_S = 10.0
JOIN_DEADLINE_S = 90.0
SEEN_DEADLINE_S = 60.0
BACKLOG = 1000  # records on each of the hot member's partitions
RUN_S = 45.0  # after the backlog lands: the advised rebalance comes by then
# After the advised rebalance: a second one (a storm) would have come by then.
WATCH_S = HOLD_S + COOLDOWN_S + 2.0

M = TypeVar("M", bound=Member)


def start_advising_sidecar(
    bootstrap: str, log_path: Path, *, hold_s: float = HOLD_S
) -> SidecarProcess:
    """A sidecar refreshing every 0.5 s that advises after ``hold_s``, at most once every
    COOLDOWN_S, for a gain of at least MIN_GAIN."""
    return start_sidecar(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
            "LAGASSIGN_REFRESH_INTERVAL_S": "0.5",
            "LAGASSIGN_GROUP_PATTERN": GROUP_PATTERN,
            "LAGASSIGN_ADVICE_MIN_GAIN": str(MIN_GAIN),
            "LAGASSIGN_ADVICE_HOLD_S": str(hold_s),
            "LAGASSIGN_ADVICE_COOLDOWN_S": str(COOLDOWN_S),
            # These tests land each backlog in one burst, which the default drain model
            # would also read as production for its recent span; they are about the
            # advice's hold, cooldown and helpers, so they weigh the backlog alone (the
            # drain model's advice: tests/service/test_advice*.py, tests/rates).
            "LAGASSIGN_LAG_MODEL": "backlog",
        },
        log_path,
    )


def advice(sidecar: SidecarProcess, group: str) -> dict[str, Any]:
    response = httpx.get(f"{sidecar.url}/groups/{group}/advice", timeout=10.0)
    response.raise_for_status()
    body: dict[str, Any] = response.json()
    return body


def member_lags(sidecar: SidecarProcess, group: str) -> dict[str, int]:
    report = sidecar.group(group)
    assert report is not None
    return {m["member_id"]: m["lag"] for m in report["members"]}


def advised_rebalances(sidecar: SidecarProcess, group: str) -> float:
    text = httpx.get(f"{sidecar.url}/metrics", timeout=10.0).text
    line = f'lagassign_advised_rebalances_total{{group="{group}"}} '
    values = [float(row.removeprefix(line)) for row in text.splitlines() if row.startswith(line)]
    return values[0] if values else 0.0


async def committed_topic(bootstrap: str, group: str, topic: str) -> None:
    """``topic`` with PARTITIONS partitions, empty, and ``group`` committed at 0 on each
    (no lag: a group of two is balanced at start)."""
    await create_topic(bootstrap, topic, PARTITIONS)
    await commit(bootstrap, group, {(topic, p): 0 for p in range(PARTITIONS)})


async def stable_pair(
    sidecar: SidecarProcess, group: str, members: Sequence[Member], what: str = "stable"
) -> None:
    """Wait until the two members hold two partitions each and the sidecar sees the
    group Stable so (the members already started)."""
    await eventually_async(
        lambda: seen_stable(members, sidecar, group, [2, 2]),
        JOIN_DEADLINE_S,
        f"{group} {what} with two members",
        0.5,
    )


@contextlib.asynccontextmanager
async def started_pair(
    joins: Membership, sidecar: SidecarProcess, make: Callable[[str, Membership], M]
) -> AsyncIterator[list[M]]:
    """Two members ``make(name, joins)`` of ``joins.group`` on its one topic, committed at
    0 beforehand (:func:`committed_topic`), started and Stable (:func:`stable_pair`); both
    stopped on the way out."""
    (topic,) = joins.topics
    await committed_topic(joins.bootstrap, joins.group, topic)
    members = [make(f"{joins.group}-member-{i}", joins) for i in range(2)]
    try:
        for m in members:
            await m.start()
        await stable_pair(sidecar, joins.group, members)
        yield members
    finally:
        for m in members:
            await m.stop()


async def one_advised_rebalance(rebalanced: Callable[[], Awaitable[bool]]) -> None:
    """Wait for the advised rebalance (``rebalanced``), then watch for a second one (a
    storm) for WATCH_S."""
    await eventually_async(rebalanced, RUN_S, "an advised rebalance", 0.5)
    await asyncio.sleep(WATCH_S)  # a bounded watch: no storm


def check_one_rebalance(rebalances: float) -> None:
    """One rebalance followed the backlog, within run length / cooldown + 1."""
    assert rebalances == 1, f"{rebalances} rebalances after the backlog"
    assert rebalances <= (RUN_S + WATCH_S) / COOLDOWN_S + 1


async def check_lowered(sidecar: SidecarProcess, group: str, worst_before: int) -> None:
    """After the advised rebalance: the worst member lag fell by at least MIN_GAIN, the
    sidecar counted the rebalance it advised, and it advises nothing more."""
    lags = await asyncio.to_thread(member_lags, sidecar, group)
    assert max(lags.values()) <= (1 - MIN_GAIN) * worst_before, (worst_before, lags)
    assert await asyncio.to_thread(advised_rebalances, sidecar, group) == 1.0
    assert (await asyncio.to_thread(advice, sidecar, group))["advised"] is False


async def land_backlog(
    bootstrap: str, sidecar: SidecarProcess, group: str, hot: set[Partition], backlog: int
) -> int:
    """Write ``backlog`` records to each of the ``hot`` partitions (one member's); the
    worst member lag, once the sidecar sees it."""
    counts = [0] * PARTITIONS
    for _, p in hot:
        counts[p] = backlog
    topic = next(iter(hot))[0]
    await produce(bootstrap, topic, counts)
    worst = sum(counts)

    async def seen() -> bool:
        lags = await asyncio.to_thread(member_lags, sidecar, group)
        return max(lags.values(), default=0) == worst

    await eventually_async(seen, SEEN_DEADLINE_S, f"the sidecar sees the backlog of {group}", 0.5)
    return worst
