"""Heavy work of ``POST /assign``: in a worker thread, a bounded number at once.

A request whose cost estimate (:func:`lagassign.assign.request.request_cost`) or
body size is past :data:`LIGHT_COST` / :data:`LIGHT_BODY_BYTES` is parsed, computed
and encoded in a worker thread, so the event loop keeps answering ``/livez``,
``/metrics`` and small requests meanwhile. At most ``LAGASSIGN_MAX_HEAVY_REQUESTS``
run at once (each may hold hundreds of MB); one more waits for a turn at most
``LAGASSIGN_HEAVY_WAIT_S`` and then gets 503 ``busy`` with ``Retry-After``, never a hang.

Light work stays on the event loop: a thread hop costs more than it does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from lagassign.errors import Unavailable

T = TypeVar("T")

#: Past this cost (about microseconds of Python), the work leaves the event loop.
LIGHT_COST = 5_000
#: Past this many body bytes, parsing leaves the event loop.
LIGHT_BODY_BYTES = 64 * 1024
#: What ``Retry-After`` says to a request refused for want of a turn.
RETRY_AFTER_S = 1


class Busy(Unavailable, code="busy"):
    retry_after_s = RETRY_AFTER_S


class HeavyWork:
    """At most ``limit`` heavy calls in worker threads at once; a wait of at most ``wait_s``."""

    def __init__(self, limit: int, wait_s: float) -> None:
        self.limit = limit
        self.wait_s = wait_s
        self._turns = asyncio.Semaphore(limit)

    async def turn(self) -> None:
        """Wait for a turn; Busy (503) when none comes within ``wait_s``."""
        try:
            async with asyncio.timeout(self.wait_s):
                await self._turns.acquire()
        except TimeoutError:
            raise Busy(
                f"{self.limit} heavy requests are being computed and no turn came within "
                f"{self.wait_s:g} s (LAGASSIGN_MAX_HEAVY_REQUESTS, LAGASSIGN_HEAVY_WAIT_S); "
                "try again later",
                {"max_heavy_requests": self.limit},
            ) from None

    def release(self) -> None:
        self._turns.release()

    @property
    def busy(self) -> bool:
        """Every turn is taken: the next heavy request waits."""
        return self._turns.locked()


async def off_loop(in_thread: bool, function: Callable[..., T], *args: Any) -> T:
    """Run ``function`` here, or in a worker thread when the work is heavy."""
    if in_thread:
        return await asyncio.to_thread(function, *args)
    return function(*args)
