"""Reading the service's Parquet history: the schema contract, hidden files, epoch ms."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]
import pytest
from pyspark.sql import SparkSession
from pyspark.testing import assertDataFrameEqual

from lagassign_pipeline.history import HISTORY_SCHEMA, has_history, history_files, read_history
from tests.pipeline.histories import at, history_frame, history_row

pytestmark = pytest.mark.spark

# The history schema exactly as docs/history.md gives it, as the service writes it.
SERVICE_SCHEMA = pa.schema(
    [
        ("ts", pa.timestamp("ms", tz="UTC")),
        ("cluster", pa.string()),
        ("group", pa.string()),
        ("topic", pa.string()),
        ("partition", pa.int32()),
        ("log_start_offset", pa.int64()),
        ("log_end_offset", pa.int64()),
        ("committed_offset", pa.int64()),
        ("lag", pa.int64()),
        ("consumer_id", pa.string()),
        ("client_id", pa.string()),
        ("host", pa.string()),
    ]
)

ROWS = [
    history_row(0, 100, 90),
    history_row(10.5, 150, None, partition=3, consumer=None),
    history_row(86_400, 900, 880, topic="u"),  # the next day
]


def write_service_file(path: Path, rows: list[dict[str, object]], schema: pa.Schema) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)


def test_the_service_history_reads_as_the_contract(spark: SparkSession, tmp_path: Path) -> None:
    write_service_file(tmp_path / "date=2026-01-01" / "part-0.parquet", ROWS[:2], SERVICE_SCHEMA)
    write_service_file(tmp_path / "date=2026-01-02" / "part-0.parquet", ROWS[2:], SERVICE_SCHEMA)
    # a file still being written: hidden, and not Parquet yet
    (tmp_path / "date=2026-01-02" / ".part-1.parquet.inprogress").write_bytes(b"PAR1 partial")
    history = read_history(spark, tmp_path)
    assert [(f.name, f.dataType) for f in history.schema.fields] == [
        (f.name, f.dataType) for f in HISTORY_SCHEMA.fields
    ]
    assertDataFrameEqual(history, history_frame(spark, ROWS))


def test_a_ts_in_epoch_milliseconds_is_read_as_a_timestamp(
    spark: SparkSession, tmp_path: Path
) -> None:
    schema = SERVICE_SCHEMA.set(0, pa.field("ts", pa.int64()))
    rows = [{**r, "ts": round(r["ts"].timestamp() * 1000)} for r in ROWS]
    write_service_file(tmp_path / "part-0.parquet", rows, schema)
    history = read_history(spark, tmp_path)
    assert sorted(r["ts"] for r in history.collect()) == [
        at(s).replace(tzinfo=None) for s in (0, 10.5, 86_400)
    ]


def test_has_history_needs_a_visible_parquet_file(tmp_path: Path) -> None:
    assert not has_history(tmp_path / "absent")
    assert not has_history(tmp_path)
    hidden = tmp_path / "date=2026-01-01" / ".part-0.parquet"
    hidden.parent.mkdir()
    hidden.write_bytes(b"")
    assert not has_history(tmp_path)
    (tmp_path / "date=2026-01-01" / "part-0.parquet").write_bytes(b"")
    assert has_history(tmp_path)


def test_history_files_tell_finished_from_in_progress(tmp_path: Path) -> None:
    day = tmp_path / "date=2026-01-01"
    day.mkdir()
    (day / ".part-1.parquet.inprogress").write_bytes(b"")
    files = history_files(tmp_path)
    assert (files.finished, files.in_progress, files.readable) == (0, 1, False)
    assert "only 1 in-progress file(s) of a running sidecar" in files.why_unreadable()
    (day / "part-0.parquet").write_bytes(b"")
    files = history_files(tmp_path)
    assert (files.finished, files.in_progress, files.readable) == (1, 1, True)
    assert "does not exist" in history_files(tmp_path / "absent").why_unreadable()
