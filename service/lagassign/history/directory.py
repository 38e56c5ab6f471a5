"""The history directory, checked before the sidecar serves: writable, and Parquet at hand.

The lag history is an optional part of the package: its Parquet writer needs pyarrow,
installed with the ``history`` extra (``pip install 'lagassign[history]'``; the image
tagged ``-history``). Nothing here imports pyarrow, so the sidecar without the extra
serves everything else; ``lagassign serve`` refuses a ``LAGASSIGN_HISTORY_DIR`` it could
never write, or could not write Parquet to.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from lagassign.history.errors import HistoryWriteError

#: What ``lagassign serve`` says when the history is asked for without its extra.
NO_PYARROW = (
    "the lag history is written with pyarrow, which is not installed: install "
    "lagassign[history] (the image's -history tag), or unset LAGASSIGN_HISTORY_DIR"
)


def check_history_dir(directory: str | os.PathLike[str]) -> Path:
    """:func:`check_writable`, after checking that pyarrow can be imported."""
    try:
        import pyarrow  # type: ignore[import-untyped]  # noqa: F401
    except ImportError as exc:
        raise HistoryWriteError(NO_PYARROW) from exc
    return check_writable(directory)


def check_writable(directory: str | os.PathLike[str]) -> Path:
    """Make ``directory`` if need be and write and remove one small file in it.

    Raises :class:`HistoryWriteError` saying why when it cannot: ``lagassign serve``
    refuses to start on a history directory it could never write (a read-only
    volume, another user's directory, a path through a file).
    """
    path = Path(directory)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".lagassign-write-check-") as probe:
            probe.write(b"ok")
            probe.flush()
    except OSError as exc:
        raise HistoryWriteError(f"history directory {path} is not writable: {exc}") from exc
    return path
