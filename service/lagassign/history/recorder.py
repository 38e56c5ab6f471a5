"""The history sink as a refresh listener: every refresh's fresh snapshots, appended in order.

The append runs in a worker thread and overlaps the wait for the next refresh;
if the previous append is still running, the next refresh waits for it, so the
history never falls behind by more than one refresh. A failed append is never
raised into the loop, and never silent: it is counted
(:attr:`HistoryRecorder.errors_total`, ``lagassign_history_write_errors_total``),
the recorder says it is failing (:meth:`HistoryRecorder.state`,
``lagassign_history_write_failing``), and it is logged at WARNING, at most once
every ``log_every_s`` (60 s; the line says how many failures it stands for).
The first append that works again is logged at INFO.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from lagassign.history.errors import HistoryWriteError
from lagassign.history.sink import HistorySink
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.reader import LagReader
from lagassign.lagview.snapshot import GroupSnapshot

log = logging.getLogger(__name__)

#: At most one WARNING line per this many seconds while appends keep failing.
LOG_EVERY_S = 60.0


@dataclass(frozen=True, slots=True)
class HistoryState:
    """What the recorder can say of its writes (for the metrics and the operator)."""

    #: Whether the last append (or close) failed.
    failing: bool
    errors_total: int
    #: The last failure's message, ``None`` once an append works again.
    last_error: str | None
    #: When the current run of failures began (UTC), ``None`` when not failing.
    failing_since: datetime | None
    #: When an append last worked (UTC), ``None`` before the first.
    last_written: datetime | None


class HistoryRecorder:
    """A :class:`~lagassign.lagview.listeners.RefreshListener` that writes to a history sink."""

    def __init__(
        self,
        sink: HistorySink,
        *,
        log_every_s: float = LOG_EVERY_S,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.sink = sink
        self._task: asyncio.Task[None] | None = None
        self._log_every_s = log_every_s
        self._monotonic = monotonic
        #: History appends (and closes) that failed.
        self.errors_total = 0
        self._last_error: str | None = None
        self._failing_since: datetime | None = None
        self._last_written: datetime | None = None
        self._logged_at: float | None = None
        self._unlogged = 0
        self._failed_in_run = 0

    def state(self) -> HistoryState:
        return HistoryState(
            failing=self._failing_since is not None,
            errors_total=self.errors_total,
            last_error=self._last_error,
            failing_since=self._failing_since,
            last_written=self._last_written,
        )

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
            self._failed("closing the lag history", exc)

    async def _append(self, fresh: list[GroupSnapshot]) -> None:
        try:
            await asyncio.to_thread(self.sink.append, fresh)
        except HistoryWriteError as exc:
            self._failed("lag history append", exc)
        else:
            self._succeeded()

    def _failed(self, what: str, exc: HistoryWriteError) -> None:
        self.errors_total += 1
        self._failed_in_run += 1
        self._last_error = str(exc)
        if self._failing_since is None:
            self._failing_since = datetime.now(UTC)
        now = self._monotonic()
        if self._logged_at is not None and now - self._logged_at < self._log_every_s:
            self._unlogged += 1
            return
        more = f" ({self._unlogged} more failed since the last line)" if self._unlogged else ""
        log.warning("%s failed: %s%s", what, exc, more)
        self._logged_at = now
        self._unlogged = 0

    def _succeeded(self) -> None:
        self._last_written = datetime.now(UTC)
        if self._failing_since is None:
            return
        log.info("lag history written again after %d failed appends", self._failed_in_run)
        self._failing_since = None
        self._last_error = None
        self._logged_at = None
        self._unlogged = 0
        self._failed_in_run = 0

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


def recorder_of(view: LagReader | None) -> HistoryRecorder | None:
    """The history recorder among the lag view's refresh listeners (``None`` without history)."""
    listeners = getattr(view, "listeners", ())
    return next((r for r in listeners if isinstance(r, HistoryRecorder)), None)
