"""The waits on a group of :class:`~tests.client.member.Member`: settled on an
assignment, seen Stable by the sidecar, every record consumed. Every wait is bounded."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from harness.poll import eventually_async
from harness.sidecar import SidecarProcess
from tests.client.member import Member, Partition, Record

SETTLE_S = 90.0
CONSUME_S = 90.0


async def settled(
    members: Sequence[Member], expected: set[Partition], timeout_s: float = SETTLE_S
) -> dict[str, set[Partition]]:
    """Wait until every member holds partitions, together exactly ``expected`` once each,
    with the leader's note, the same in two samples a poll apart; return who holds what."""
    ready: list[dict[str, set[Partition]]] = []  # the last sample, while it was ready

    def steady() -> dict[str, set[Partition]] | None:
        held = {m.name: m.partitions() for m in members}
        union = set().union(*held.values())
        if not (
            all(held.values())
            and sum(len(h) for h in held.values()) == len(union)
            and union == expected
            and all(m.note() is not None for m in members)
        ):
            ready.clear()
            return None
        if ready and ready[-1] == held:
            return held
        ready[:] = [held]
        return None

    try:
        return await eventually_async(steady, timeout_s, "the group settles", 0.5)
    except TimeoutError:
        raise AssertionError(
            f"the group did not settle in {timeout_s} s: "
            + "; ".join(f"{m.name}: {sorted(m.partitions())} note={m.note()}" for m in members)
        ) from None


async def seen_stable(
    members: Sequence[Member], sidecar: SidecarProcess, group: str, counts: list[int]
) -> bool:
    """The members hold ``counts`` partitions (in any order) and the sidecar's
    ``/groups/{group}`` sees the group Stable with the same counts."""
    if sorted(len(m.partitions()) for m in members) != counts:
        return False
    report = await asyncio.to_thread(sidecar.group, group)
    return (
        report is not None
        and report["header"]["state"] == "Stable"
        and sorted(m["partitions"] for m in report["members"]) == counts
    )


def missing(members: Sequence[Member], produced: set[Record]) -> set[Record]:
    """The produced records no member has seen yet."""
    return produced - set().union(*(m.consumed() for m in members))


async def consumed_all(
    members: Sequence[Member], produced: set[Record], timeout_s: float = CONSUME_S
) -> None:
    """Wait until the members together have seen every produced record."""
    try:
        await eventually_async(
            lambda: not missing(members, produced), timeout_s, "every record consumed", 0.25
        )
    except TimeoutError:
        left = missing(members, produced)
        raise AssertionError(
            f"{len(left)} records never consumed in {timeout_s} s, e.g. {sorted(left)[:5]}"
        ) from None
