"""A safe point for aiokafka's rebalances in a loop that commits after every batch.

aiokafka rebalances in the background: when any member asks (the rebalance advisor,
a member joining or leaving), every member's coordinator revokes its partitions and
rejoins at once, whatever the application is doing. A batch being processed then
cannot be committed any more (``CommitFailedError``: the group has rebalanced), and
its records are read again by their next owner.

:class:`SafePoint` is the consumer's rebalance listener: aiokafka awaits
``on_partitions_revoked`` before it rejoins, and the safe point holds it there until
the batch in hand is processed and committed (at most ``max_wait_s``)::

    safe = SafePoint()                      # or SafePoint(your_listener)
    consumer.subscribe(["orders"], listener=safe)
    await consumer.start()
    advisor = RebalanceAdvisor.for_aiokafka(consumer, assignor)
    while True:
        batch = await consumer.getmany(timeout_ms=500)
        async with safe.batch():
            process(batch)
            await consumer.commit()
        advisor.maybe_rebalance()           # last: the rebalance runs during getmany()

The commit made while the rebalance waits carries the member's current generation,
which the broker accepts until every member has rejoined. Importing this module imports
aiokafka.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

# aiokafka ships no type information; its listener base is handled as Any here.
_Listener: Any = importlib.import_module("aiokafka.abc").ConsumerRebalanceListener

log = logging.getLogger("lagassign_client")

#: How long a rebalance waits for the batch in hand, at most (well under aiokafka's
#: ``max_poll_interval_ms``, 300 s by default, which bounds a rebalance).
DEFAULT_MAX_WAIT_S = 30.0


class SafePoint(_Listener):  # type: ignore[misc]
    """aiokafka rebalance listener that lets a rebalance revoke partitions only between
    batches; ``listener`` (an aiokafka ``ConsumerRebalanceListener``) is called after."""

    def __init__(self, listener: Any = None, *, max_wait_s: float = DEFAULT_MAX_WAIT_S) -> None:
        if not max_wait_s > 0:
            raise ValueError(f"max_wait_s must be positive; got {max_wait_s!r}")
        self._inner = listener
        self.max_wait_s = max_wait_s
        self._busy = 0
        self._idle: asyncio.Event | None = None
        #: Rebalances that waited for a batch, and those that gave up waiting.
        self.waited = 0
        self.gave_up = 0

    def _event(self) -> asyncio.Event:
        if self._idle is None:
            self._idle = asyncio.Event()
            self._idle.set()
        return self._idle

    @asynccontextmanager
    async def batch(self) -> AsyncIterator[None]:
        """Process and commit one batch inside: a rebalance waits until it is done."""
        idle = self._event()
        self._busy += 1
        idle.clear()
        try:
            yield
        finally:
            self._busy -= 1
            if self._busy == 0:
                idle.set()

    async def on_partitions_revoked(self, revoked: Any) -> None:
        idle = self._event()
        if not idle.is_set():
            self.waited += 1
            try:
                await asyncio.wait_for(idle.wait(), self.max_wait_s)
            except TimeoutError:
                self.gave_up += 1
                log.warning(
                    "lagassign: a rebalance waited %.0f s for the batch in hand and goes on"
                    " without it: its commit will be refused",
                    self.max_wait_s,
                )
        await self._call("on_partitions_revoked", revoked)

    async def on_partitions_assigned(self, assigned: Any) -> None:
        await self._call("on_partitions_assigned", assigned)

    async def _call(self, method: str, partitions: Any) -> None:
        if self._inner is None:
            return
        result = getattr(self._inner, method)(partitions)
        if asyncio.iscoroutine(result):
            await result
