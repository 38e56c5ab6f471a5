"""An event loop of its own, in a thread of its own, for the lag view.

A refresh of a large cluster is mostly CPU work in this process (decoding
``ListOffsets``, ``ConsumerGroupDescribe`` and ``OffsetFetch`` answers, putting
the snapshots together, recording the rate window): hundreds of milliseconds
per refresh at 10,000 partitions. On the HTTP event loop that work would hold
every call meanwhile, the broker plugin's too (it has 50 ms by default). So the
composition root (:mod:`lagassign.http.sidecar`) gives the lag view
(:class:`~lagassign.lagview.view.LagView`) a :class:`KafkaLoop`: the refreshes,
the Kafka clients and the refresh listeners run there, and

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
    """An event loop running in a daemon thread of its own, and the way to hand it work."""

    def __init__(self, name: str = "lagassign-kafka") -> None:
        self.loop = asyncio.new_event_loop()
        # Started by the first work handed over: a loop never used leaves no thread.
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._start = threading.Lock()

    def _run(self) -> None:
        loop = self.loop
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
        return threading.current_thread() is self._thread

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        """``work``'s result, run on this loop (awaited directly when already on it).

        Cancelling the caller cancels ``work`` on this loop.
        """
        if self.on_it():
            return await work
        self._started()
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self.loop))

    def call(self, function: Callable[..., object], *args: object) -> None:
        """Call ``function(*args)`` on this loop, soon (in order with the work handed to it)."""
        if self.on_it():
            function(*args)
        else:
            self._started()
            self.loop.call_soon_threadsafe(function, *args)

    def _started(self) -> None:
        with self._start:
            if self._thread.ident is None:
                self._thread.start()

    async def close(self, timeout_s: float = STOP_S) -> None:
        """Stop the loop and wait, at most ``timeout_s``, for its thread to end."""
        with self._start:
            if self._thread.ident is None:
                self.loop.close()
                return
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.loop.stop)
        await asyncio.to_thread(self._thread.join, timeout_s)
        if self._thread.is_alive():
            log.warning("the lag view's thread did not end within %.1f s", timeout_s)
