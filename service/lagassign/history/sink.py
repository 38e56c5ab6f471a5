"""What the lag view needs from a history sink: append one refresh, close."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from lagassign.lagview.snapshot import GroupSnapshot


class HistorySink(Protocol):
    """Receives every refresh's fresh snapshots, in order.

    ``append`` may block (the lag view calls it in a worker thread, one call at
    a time) and raises only :class:`~lagassign.history.errors.HistoryWriteError`.
    """

    def append(self, snapshots: Sequence[GroupSnapshot]) -> int:
        """Record ``snapshots``; returns the number of rows written."""
        ...

    def close(self) -> None:
        """Finish every open file; later appends open new ones."""
        ...
