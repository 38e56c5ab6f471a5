"""An event loop of its own, in a thread of its own, for the lag view.

A refresh of a large cluster is mostly CPU work in this process (decoding
``ListOffsets``, ``ConsumerGroupDescribe`` and ``OffsetFetch`` answers, putting
the snapshots together, recording the rate window): hundreds of milliseconds
per refresh at 10,000 partitions. On the HTTP event loop that work would hold
every call meanwhile, the broker plugin's too (it has 50 ms by default). So the lag view
(:class:`~lagassign.lagview.view.LagView`) always has a :class:`KafkaLoop` of its
own: the refreshes, the Kafka clients and the refresh listeners run there, and

- what reads the lag view's state (a snapshot, the member index, the health) reads
  it directly, without a lock: the store and the index publish values that are
  replaced whole, never changed in place;
- what asks Kafka or changes what the view tracks (an on-demand group read, a
  nudge, a new group to track, a refresh, start and stop) is handed to the loop
  (:meth:`KafkaLoop.run`, :meth:`KafkaLoop.call`).

A busy refresh thread then delays the HTTP loop by the interpreter's switch
interval (5 ms), not by the whole refresh. Stopping is bounded: the view gets
:data:`STOP_S` to stop on its loop, then the loop ends (what is left is cancelled
and given a second) and its thread is waited for :data:`STOP_S` at most.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The longest a stop waits for the view (its refresh, clients, listeners), and for the thread.
STOP_S = 5.0


class KafkaLoop:
    """An event loop running in a daemon thread of its own, and the way to hand it work.

    The loop and its thread are made by the first work handed over: a loop never used
    (a lag view built and never started) leaves no thread and nothing to close.
    """

    def __init__(self, name: str = "lagassign-kafka") -> None:
        self.name = name
        #: The loop, once work was handed over (``None`` before).
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()

    @staticmethod
    def _run(loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
            # Whatever is left (a read that ignored its cancellation) gets a bounded end.
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            if left:
                loop.run_until_complete(asyncio.wait(left, timeout=1.0))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()

    def on_it(self) -> bool:
        """True when called from the loop's own thread."""
        return self._thread is not None and threading.current_thread() is self._thread

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        """``work``'s result, run on this loop (awaited directly when already on it).

        Cancelling the caller cancels ``work`` on this loop.
        """
        if self.on_it():
            return await work
        loop = self._started()
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, loop))

    def call(self, function: Callable[..., object], *args: object) -> None:
        """Call ``function(*args)`` on this loop, soon (in order with the work handed to it)."""
        if self.on_it():
            function(*args)
        else:
            self._started().call_soon_threadsafe(function, *args)

    def _started(self) -> asyncio.AbstractEventLoop:
        with self._start:
            if self.loop is None:
                self.loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._run, args=(self.loop,), name=self.name, daemon=True
                )
                self._thread.start()
            return self.loop

    async def close(self, timeout_s: float = STOP_S) -> None:
        """Stop the loop and wait, at most ``timeout_s``, for its thread to end."""
        with self._start:
            loop, thread = self.loop, self._thread
        if loop is None or thread is None:
            return
        if not loop.is_closed():
            loop.call_soon_threadsafe(loop.stop)
        await asyncio.to_thread(thread.join, timeout_s)
        if thread.is_alive():
            log.warning("the lag view's thread did not end within %.1f s", timeout_s)
