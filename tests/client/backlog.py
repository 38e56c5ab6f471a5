"""A skewed backlog on the real broker: topics, records, and the group's commits at 0."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from harness.builders import commit, create_topic, produce
from harness.poll import eventually_async
from harness.sidecar import SidecarProcess
from tests.client.member import Partition, Record

# The groups of these tests; the sidecar tracks them from their first commit.
GROUP_PREFIX = "shim."
GROUP_PATTERN = r"shim\..*"

# Per topic: two hot partitions first, the rest light. Kafka's range assignor gives
# the first member in member-id order partitions 0 and 1 of every topic.
SKEW = (400, 300, 20, 20, 20, 20)
SIDECAR_DEADLINE_S = 60.0


async def skewed_backlog(
    bootstrap: str, group: str, topics: Sequence[str], counts: Sequence[int] = SKEW
) -> dict[Partition, int]:
    """Create ``topics``, write ``counts[p]`` records to partition p of each, commit 0 for
    ``group`` on every partition; return each partition's lag (its record count)."""
    for topic in topics:
        await create_topic(bootstrap, topic, len(counts))
        await produce(bootstrap, topic, counts)
    await commit(bootstrap, group, {(t, p): 0 for t in topics for p in range(len(counts))})
    return {(t, p): n for t in topics for p, n in enumerate(counts)}


def produced_records(
    lags: dict[Partition, int], start: dict[Partition, int] | None = None
) -> set[Record]:
    """Every record of the backlog as (topic, partition, offset), from ``start`` offsets."""
    begin = start or {}
    return {(t, p, o) for (t, p), n in lags.items() for o in range(begin.get((t, p), 0), n)}


async def sidecar_sees(sidecar: SidecarProcess, group: str, total_lag: int) -> None:
    """Wait until the sidecar's cached view of ``group`` holds ``total_lag``."""

    async def seen() -> int | None:
        report = await asyncio.to_thread(sidecar.group, group)
        return None if report is None else sum(row["lag"] or 0 for row in report["partitions"])

    async def holds_total() -> bool:
        return await seen() == total_lag

    await eventually_async(
        holds_total, SIDECAR_DEADLINE_S, f"the sidecar sees lag {total_lag} for {group}", 0.25
    )
