"""The pipeline reads the history of a sidecar that is still running and recording.

A real ``lagassign serve`` records a real broker's lag with a short roll interval;
while it keeps running, the job reads the finished files and sees the rows up to the
last finished interval, never the file still being written.
"""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pyarrow.parquet as pq  # type: ignore[import-untyped]
import pytest
from pyspark.sql import SparkSession

from harness.broker import LocalKafka
from harness.builders import commit, create_topic, produce
from harness.poll import eventually
from harness.sidecar import start_sidecar
from lagassign_pipeline.backtest import BacktestSpec
from lagassign_pipeline.history import IN_PROGRESS_SUFFIX
from lagassign_pipeline.job import STEPS, JobSettings, run
from lagassign_pipeline.progress import Progress
from lagassign_pipeline.rates import RateSpec

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

ROLL_INTERVAL_S = 2
WAIT_S = 60.0


def finished(history: Path) -> list[Path]:
    return sorted(history.glob("date=*/part-*.parquet"))


def in_progress(history: Path) -> list[Path]:
    return sorted(history.glob(f"date=*/.*{IN_PROGRESS_SUFFIX}"))


def rows_and_newest(files: list[Path]) -> tuple[int, datetime]:
    rows, newest = 0, datetime.min.replace(tzinfo=UTC)
    for f in files:
        table = pq.read_table(f, columns=["ts"])
        rows += table.num_rows
        newest = max(newest, max(table.column("ts").to_pylist()))
    return rows, newest


def test_the_pipeline_reads_a_running_sidecars_finished_files(
    kafka_broker: LocalKafka,
    kafka_names: Callable[[str], str],
    spark: SparkSession,
    tmp_path: Path,
) -> None:
    topic, group = kafka_names("t"), kafka_names("g")
    history = tmp_path / "history"
    asyncio.run(create_topic(kafka_broker.bootstrap, topic, 3))
    asyncio.run(produce(kafka_broker.bootstrap, topic, [30, 20, 10]))
    asyncio.run(commit(kafka_broker.bootstrap, group, {(topic, 0): 5, (topic, 1): 5}))
    sidecar = start_sidecar(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": kafka_broker.bootstrap,
            "LAGASSIGN_GROUPS": group,
            # Only this group: the shared broker holds other tests' consumer-protocol groups.
            "LAGASSIGN_TRACK_CONSUMER_GROUPS": "false",
            "LAGASSIGN_REFRESH_INTERVAL_S": "0.5",
            "LAGASSIGN_HISTORY_DIR": str(history),
            "LAGASSIGN_HISTORY_ROLL_INTERVAL_S": str(ROLL_INTERVAL_S),
            "LAGASSIGN_CLUSTER": "live",
        },
        tmp_path / "sidecar.log",
    )
    try:
        deadline = time.monotonic() + WAIT_S
        while len(finished(history)) < 2 and time.monotonic() < deadline:
            asyncio.run(produce(kafka_broker.bootstrap, topic, [5, 1, 0]))
            time.sleep(0.5)
        assert len(finished(history)) >= 2, sidecar.log_path.read_text()[-2000:]

        started = datetime.now(UTC)
        before_rows, before_newest = rows_and_newest(finished(history))
        # Files are finished every roll interval: the newest finished row is recent.
        assert (started - before_newest).total_seconds() < ROLL_INTERVAL_S + 5
        out = io.StringIO()
        settings = JobSettings(
            history=history,
            report=tmp_path / "report",
            weights=tmp_path / "forecast-weights.json",
            rates=RateSpec(window_s=30, max_gap_s=10, horizon_s=10),
            backtest=BacktestSpec(horizon_s=10, strategies=("range", "balanced")),
        )
        result = run(spark, settings, Progress(len(STEPS), stream=out))
        after_rows, after_newest = rows_and_newest(finished(history))

        # The sidecar never stopped: it is still running and still writing a file (a new
        # one opens at the refresh after a roll: on a loaded machine that can take a while).
        assert sidecar.process.poll() is None
        eventually(lambda: in_progress(history), 60, "a history file in progress")
        assert "synthetic" not in out.getvalue()
        assert result.facts.source == f"Parquet history in {history}"
        # Everything finished before the run is read; nothing beyond what was finished
        # by its end (the open file is never read).
        assert before_rows <= result.facts.rows <= after_rows
        assert result.facts.last is not None
        assert before_newest <= result.facts.last <= after_newest
        assert result.facts.groups == 1
        assert result.facts.partitions == 3
    finally:
        sidecar.stop()
    # The shutdown finishes the last file: nothing stays in progress.
    assert in_progress(history) == []
