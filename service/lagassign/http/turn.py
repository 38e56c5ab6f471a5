"""A ``POST /assign`` request's turn at heavy work, and the watch on its client.

:class:`Turn` is the use case's :class:`~lagassign.assign.rebalance.Worker` in the
route: a heavy request takes one of the ``LAGASSIGN_MAX_HEAVY_REQUESTS`` turns
(:mod:`lagassign.http.heavy`) before its next piece of work, and a client that closes
its connection once its body is read ends the wait and every later step.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import Request
from starlette.requests import ClientDisconnect

from lagassign.http.heavy import HeavyWork, off_loop
from lagassign.http.server_timing import StepTimes

T = TypeVar("T")


class Turn:
    """One request's turn at heavy work: taken at most once, released once.

    The use case's :class:`~lagassign.assign.rebalance.Worker`: once the turn is
    ``wanted`` (the request is heavy) it is taken before the next piece of work, and
    work runs in a worker thread while it is held. Once :meth:`watch` has started
    (the body is read), a client that closes its connection ends a wait for the turn
    and every later step with ``ClientDisconnect``. Each step's time, and the wait for
    the turn, is counted in ``steps`` (the answer's ``Server-Timing``).
    """

    def __init__(self, heavy: HeavyWork) -> None:
        self.heavy = heavy
        self.held = False
        self.wanted = False
        self.left = asyncio.Event()
        self.steps = StepTimes()
        self._watcher: asyncio.Task[None] | None = None

    def watch(self, request: Request) -> None:
        """Watch the connection of ``request``, whose body has been read in full."""
        self._watcher = asyncio.create_task(watch_disconnect(request, self.left))

    async def take(self) -> None:
        if self.held:
            return
        waited = time.perf_counter()
        try:
            await self._take()
        finally:
            self.steps.add("turn", waited)

    async def _take(self) -> None:
        if self._watcher is None:
            await self.heavy.turn()
            self.held = True
            return
        turn = asyncio.ensure_future(self.heavy.turn())
        left = asyncio.ensure_future(self.left.wait())
        try:
            await asyncio.wait((turn, left), return_when=asyncio.FIRST_COMPLETED)
        finally:
            left.cancel()
            if not turn.done():
                turn.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await turn
            # Taken, even as this wait itself was cancelled: release() gives it back.
            self.held = not turn.cancelled() and turn.exception() is None
        if not turn.cancelled():
            turn.result()  # Busy, when no turn came in time
        await self.check_client()

    async def check_client(self) -> None:
        if self.left.is_set():
            raise ClientDisconnect()

    def release(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()
        if self.held:
            self.held = False
            self.heavy.release()

    async def run(self, step: str, function: Callable[..., T], *args: Any) -> T:
        await self.check_client()
        if self.wanted:
            await self.take()
        began = time.perf_counter()
        try:
            return await off_loop(self.held, function, *args)
        finally:
            self.steps.add(step, began)


async def watch_disconnect(request: Request, left: asyncio.Event) -> None:
    """Set ``left`` when the client closes its connection (nothing else is left to receive)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            left.set()
            return
