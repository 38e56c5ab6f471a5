"""Errors of the history sink.

    OSError
     └── HistoryWriteError   a refresh could not be appended to the history
                             (disk full, permissions, an Arrow/Parquet failure)

The lag view catches :class:`HistoryWriteError`, counts it and goes on: the
history is a record, never a reason to stop serving lag.
"""

from __future__ import annotations


class HistoryWriteError(OSError):
    """Appending to the history failed; the message says where and why."""
