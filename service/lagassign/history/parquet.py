"""The Parquet history sink: every refresh appended under ``<dir>/date=YYYY-MM-DD/``.

Each refresh becomes one row group of the day's open file. A file is written as
a hidden ``.part-….parquet.inprogress`` (Spark and Arrow datasets skip names
starting with a dot) and renamed to ``part-….parquet`` once finished, so readers
only ever see complete files. A file is finished:

- at the first refresh once it is ``roll_interval_s`` old
  (``LAGASSIGN_HISTORY_ROLL_INTERVAL_S``, default 5 minutes), so the pipeline can
  read a running sidecar's history up to the last finished interval;
- when it reaches ``max_file_bytes`` (``LAGASSIGN_HISTORY_MAX_FILE_BYTES``, default
  64 MiB; a file's data never passes that by more than one refresh, the Parquet
  footer comes on top);
- when the day changes, and on :meth:`close` (the sidecar's shutdown).

The format and the rules are in ``docs/history.md``.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from lagassign.history.errors import HistoryWriteError
from lagassign.history.schema import HISTORY_SCHEMA, history_table
from lagassign.lagview.snapshot import GroupSnapshot

DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
DEFAULT_ROLL_INTERVAL_S = 300.0


@dataclass(slots=True)
class _OpenFile:
    writer: pq.ParquetWriter
    partial: Path
    final: Path
    opened_at: float


class ParquetHistorySink:
    """Appends refreshes as Parquet rows with :data:`~lagassign.history.schema.HISTORY_SCHEMA`.

    ``cluster`` fills the ``cluster`` column. Not thread-safe: one ``append``
    at a time (the lag view guarantees it).
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        cluster: str,
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        roll_interval_s: float = DEFAULT_ROLL_INTERVAL_S,
        compression: str = "zstd",
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_file_bytes <= 0 or roll_interval_s <= 0:
            raise ValueError("max_file_bytes and roll_interval_s must be positive")
        self.directory = Path(directory)
        self.cluster = cluster
        self.max_file_bytes = max_file_bytes
        self.roll_interval_s = roll_interval_s
        self.compression = compression
        self._monotonic = monotonic
        self._open: dict[date, _OpenFile] = {}
        self._sequence = itertools.count()
        self.rows_written = 0
        self.files_finished = 0

    def append(self, snapshots: Sequence[GroupSnapshot]) -> int:
        """Write the fresh rows of ``snapshots``, one row group per day they fall on."""
        by_day: dict[date, list[GroupSnapshot]] = {}
        for s in snapshots:
            by_day.setdefault(s.as_of.date(), []).append(s)
        written = 0
        try:
            for day in sorted(by_day):
                table = history_table(by_day[day], self.cluster)
                if table.num_rows:
                    self._write(day, table)
                    written += table.num_rows
            now = self._monotonic()
            for day in list(self._open):
                past_day = bool(by_day) and day < max(by_day)
                if past_day or now - self._open[day].opened_at >= self.roll_interval_s:
                    self._finish(day)
        except (OSError, pa.ArrowException) as exc:
            raise HistoryWriteError(f"history append under {self.directory} failed: {exc}") from exc
        self.rows_written += written
        return written

    def close(self) -> None:
        """Finish every open file."""
        try:
            for day in list(self._open):
                self._finish(day)
        except (OSError, pa.ArrowException) as exc:
            raise HistoryWriteError(f"history close under {self.directory} failed: {exc}") from exc

    def finished_files(self) -> list[Path]:
        """Every finished Parquet file under the directory, sorted."""
        return sorted(self.directory.glob("date=*/part-*.parquet"))

    def _write(self, day: date, table: pa.Table) -> None:
        current = self._open.get(day) or self._start(day)
        current.writer.write_table(table)
        if current.partial.stat().st_size >= self.max_file_bytes:
            self._finish(day)

    def _start(self, day: date) -> _OpenFile:
        folder = self.directory / f"date={day.isoformat()}"
        folder.mkdir(parents=True, exist_ok=True)
        name = f"part-{time.time_ns()}-{os.getpid()}-{next(self._sequence):06d}"
        partial = folder / f".{name}.parquet.inprogress"
        writer = pq.ParquetWriter(partial, HISTORY_SCHEMA, compression=self.compression)
        opened = _OpenFile(writer, partial, folder / f"{name}.parquet", self._monotonic())
        self._open[day] = opened
        return opened

    def _finish(self, day: date) -> None:
        current = self._open.pop(day)
        current.writer.close()
        current.partial.replace(current.final)
        self.files_finished += 1
