"""The Parquet sink: date directories, complete files only, bounded sizes, exact schema."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow.dataset as ds  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]
import pytest

from lagassign.history.errors import HistoryWriteError
from lagassign.history.parquet import ParquetHistorySink
from lagassign.history.schema import HISTORY_SCHEMA
from lagassign.lagview.snapshot import GroupSnapshot
from tests.history.builders import group, partition

DAY = datetime(2026, 3, 4, 23, 59, 58, tzinfo=UTC)


def refresh(as_of: datetime, partitions: int = 4, groups: int = 2) -> list[GroupSnapshot]:
    return [
        group(
            f"g{g}",
            as_of,
            [partition("t", p, p, 0, 100 + p, 100, member=f"m{p % 2}") for p in range(partitions)],
        )
        for g in range(groups)
    ]


def hidden(directory: Path) -> list[Path]:
    return sorted(directory.rglob(".*.inprogress"))


def test_refreshes_read_back_with_the_exact_schema(tmp_path: Path) -> None:
    sink = ParquetHistorySink(tmp_path, "prod")
    assert sink.append(refresh(DAY)) == 8
    assert sink.append(refresh(DAY + timedelta(seconds=1))) == 8
    # Nothing is readable before the file is finished...
    assert sink.finished_files() == []
    assert len(hidden(tmp_path)) == 1
    sink.close()
    # ... and everything after.
    files = sink.finished_files()
    assert [f.parent.name for f in files] == ["date=2026-03-04"]
    assert hidden(tmp_path) == []
    table = pq.read_table(files[0])
    assert table.schema.remove_metadata() == HISTORY_SCHEMA
    assert table.num_rows == 16
    assert pq.ParquetFile(files[0]).metadata.num_row_groups == 2
    first = table.to_pylist()[0]
    assert first["ts"] == DAY
    assert (first["cluster"], first["group"], first["topic"], first["partition"]) == (
        "prod",
        "g0",
        "t",
        0,
    )
    assert (first["lag"], first["consumer_id"], first["committed_offset"]) == (100, "m0", 0)


def test_a_new_day_goes_to_a_new_directory(tmp_path: Path) -> None:
    sink = ParquetHistorySink(tmp_path, "prod")
    sink.append(refresh(DAY))
    sink.append(refresh(DAY + timedelta(seconds=3)))
    # The previous day's file is finished as soon as the next day starts.
    assert [f.parent.name for f in sink.finished_files()] == ["date=2026-03-04"]
    sink.close()
    assert [f.parent.name for f in sink.finished_files()] == ["date=2026-03-04", "date=2026-03-05"]
    # The whole history reads as one dataset, the date directories as a partition column.
    dataset = ds.dataset(tmp_path, format="parquet", partitioning="hive")
    assert dataset.count_rows() == 16


def test_files_are_bounded_in_size(tmp_path: Path) -> None:
    limit = 100_000
    sink = ParquetHistorySink(tmp_path, "prod", max_file_bytes=limit, compression="none")
    for i in range(30):
        sink.append(refresh(DAY - timedelta(hours=1) + timedelta(seconds=i), partitions=300))
    sink.close()
    files = sink.finished_files()
    assert len(files) >= 3
    for f in files:
        meta = pq.read_metadata(f)
        last = meta.row_group(meta.num_row_groups - 1).total_byte_size
        # A file is finished once it reaches the limit: before its last refresh it was below.
        assert f.stat().st_size - meta.serialized_size - last < limit
    assert sum(pq.read_metadata(f).num_rows for f in files) == 30 * 2 * 300
    assert sink.rows_written == 30 * 2 * 300


def test_files_are_bounded_in_age(tmp_path: Path) -> None:
    now = [0.0]
    sink = ParquetHistorySink(tmp_path, "prod", roll_interval_s=60, monotonic=lambda: now[0])
    sink.append(refresh(DAY - timedelta(hours=2)))
    now[0] = 59.0
    sink.append(refresh(DAY - timedelta(hours=2)))
    assert sink.finished_files() == []
    now[0] = 60.0
    sink.append(refresh(DAY - timedelta(hours=2)))
    assert len(sink.finished_files()) == 1
    sink.close()


def test_an_empty_refresh_writes_nothing(tmp_path: Path) -> None:
    sink = ParquetHistorySink(tmp_path, "prod")
    assert sink.append([]) == 0
    assert sink.append([group("g", DAY, [], error="boom")]) == 0
    sink.close()
    assert list(tmp_path.iterdir()) == []


def test_a_directory_that_cannot_be_written_is_a_history_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    sink = ParquetHistorySink(blocker, "prod")
    with pytest.raises(HistoryWriteError, match="history append"):
        sink.append(refresh(DAY))


def test_limits_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="positive"):
        ParquetHistorySink(tmp_path, "prod", max_file_bytes=0)
