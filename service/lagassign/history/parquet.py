"""The Parquet history sink: every refresh appended under ``<dir>/date=YYYY-MM-DD/``.

Each refresh becomes one row group of the day's open file. A file is written as
a hidden ``.part-….parquet.inprogress`` (Spark and Arrow datasets skip names
starting with a dot) and renamed to ``part-….parquet`` once finished, so readers
only ever see complete files. A file is finished when it reaches
``max_file_bytes`` (so a file's data never passes that by more than one refresh;
the Parquet footer comes on top), when it is ``max_file_age_s`` old, when the
day changes, and on :meth:`close`.
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
DEFAULT_MAX_FILE_AGE_S = 3600.0


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
        max_file_age_s: float = DEFAULT_MAX_FILE_AGE_S,
        compression: str = "zstd",
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_file_bytes <= 0 or max_file_age_s <= 0:
            raise ValueError("max_file_bytes and max_file_age_s must be positive")
        self.directory = Path(directory)
        self.cluster = cluster
        self.max_file_bytes = max_file_bytes
        self.max_file_age_s = max_file_age_s
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
            for day in [d for d in self._open if by_day and d < max(by_day)]:
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
        too_big = current.partial.stat().st_size >= self.max_file_bytes
        too_old = self._monotonic() - current.opened_at >= self.max_file_age_s
        if too_big or too_old:
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
