"""The history sink as a refresh listener: every refresh's fresh snapshots, appended in order.

The append runs in a worker thread and overlaps the wait for the next refresh;
if the previous append is still running, the next refresh waits for it, so the
history never falls behind by more than one refresh. A failed append is logged
and counted (:attr:`HistoryRecorder.errors_total`), never raised into the loop.
"""

from __future__ import annotations

import asyncio
import logging

from lagassign.history.errors import HistoryWriteError
from lagassign.history.sink import HistorySink
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot

log = logging.getLogger(__name__)


class HistoryRecorder:
    """A :class:`~lagassign.lagview.listeners.RefreshListener` that writes to a history sink."""

    def __init__(self, sink: HistorySink) -> None:
        self.sink = sink
        self._task: asyncio.Task[None] | None = None
        #: History appends (and closes) that failed.
        self.errors_total = 0

    async def refreshed(self, refresh: Refresh) -> None:
        if not refresh.fresh:
            return
        await self._written()
        self._task = asyncio.create_task(
            self._append(list(refresh.fresh)), name="lagassign-lag-history"
        )

    async def close(self) -> None:
        """Wait for the last append, then finish the sink's files."""
        await self._written()
        try:
            await asyncio.to_thread(self.sink.close)
        except HistoryWriteError as exc:
            self.errors_total += 1
            log.warning("closing the lag history failed: %s", exc)

    async def _append(self, fresh: list[GroupSnapshot]) -> None:
        try:
            await asyncio.to_thread(self.sink.append, fresh)
        except HistoryWriteError as exc:
            self.errors_total += 1
            log.warning("lag history append failed: %s", exc)

    async def _written(self) -> None:
        """Wait until the last append has finished.

        Shielded: a waiter that is cancelled (the loop, when the view stops)
        leaves the append running, and :meth:`close` waits for it.
        """
        task = self._task
        if task is not None:
            await asyncio.shield(task)
            if self._task is task:
                self._task = None
