"""aiokafka's rebalance held at the safe point: until the batch in hand is done, at most
``max_wait_s``; the application's own listener called after, awaited when a coroutine."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from lagassign_client.aiokafka_commit import SafePoint

pytestmark = pytest.mark.anyio


class Listener:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    async def on_partitions_revoked(self, revoked: Any) -> None:
        self.calls.append(("revoked", revoked))

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.calls.append(("assigned", assigned))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_rebalance_waits_for_the_batch_in_hand() -> None:
    inner = Listener()
    safe = SafePoint(inner)
    order: list[str] = []
    started = asyncio.Event()
    batch_done = asyncio.Event()

    async def work() -> None:
        async with safe.batch():
            order.append("batch started")
            started.set()
            await batch_done.wait()
            order.append("batch committed")

    worker = asyncio.create_task(work())
    await asyncio.wait_for(started.wait(), 5.0)
    revoking = asyncio.create_task(safe.on_partitions_revoked({"t-0"}))
    done, _ = await asyncio.wait({revoking}, timeout=0.2)
    assert not done, "the rebalance went on while the batch was in hand"
    batch_done.set()
    await asyncio.wait_for(revoking, 5.0)
    order.append("revoked")
    await worker
    assert order == ["batch started", "batch committed", "revoked"]
    assert inner.calls == [("revoked", {"t-0"})]
    assert (safe.waited, safe.gave_up) == (1, 0)
    await safe.on_partitions_assigned({"t-1"})
    assert inner.calls[-1] == ("assigned", {"t-1"})


async def test_between_batches_a_rebalance_goes_at_once() -> None:
    safe = SafePoint()
    await asyncio.wait_for(safe.on_partitions_revoked(set()), 1.0)
    assert safe.waited == 0


async def test_a_batch_that_does_not_end_holds_the_rebalance_at_most_max_wait_s() -> None:
    safe = SafePoint(max_wait_s=0.05)
    started = asyncio.Event()
    never = asyncio.Event()

    async def stuck() -> None:
        async with safe.batch():
            started.set()
            await never.wait()

    worker = asyncio.create_task(stuck())
    await asyncio.wait_for(started.wait(), 5.0)
    await asyncio.wait_for(safe.on_partitions_revoked(set()), 5.0)
    assert (safe.waited, safe.gave_up) == (1, 1)
    worker.cancel()


def test_max_wait_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_wait_s"):
        SafePoint(max_wait_s=0)
