"""The lag view records every refresh of a real broker; the files read back exactly."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pyarrow.dataset as ds  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]
import pytest

from harness.broker import LocalKafka
from harness.builders import commit, create_topic, produce
from lagassign.history.parquet import ParquetHistorySink
from lagassign.history.recorder import HistoryRecorder
from lagassign.history.schema import HISTORY_SCHEMA
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.lagview.view import LagView

pytestmark = pytest.mark.kafka


def test_refreshes_are_recorded_with_the_exact_schema(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str], tmp_path: Path
) -> None:
    topic, group = kafka_names("t"), kafka_names("g")
    sink = ParquetHistorySink(tmp_path / "history", "local")
    taken: list[GroupSnapshot] = []

    async def scenario() -> None:
        await create_topic(kafka_broker.bootstrap, topic, 3)
        await produce(kafka_broker.bootstrap, topic, [4, 5, 6])
        await commit(kafka_broker.bootstrap, group, {(topic, 0): 1, (topic, 2): 6})
        recorder = HistoryRecorder(sink)
        view = LagView(
            kafka_broker.bootstrap, groups=[group], listeners=[recorder], request_timeout_s=10
        )
        try:
            for _ in range(2):
                assert await view.refresh(), view.last_refresh_error
                snapshot = view.snapshot(group)
                assert snapshot is not None
                taken.append(snapshot)
                await produce(kafka_broker.bootstrap, topic, [1, 0, 0])
        finally:
            await view.stop()  # finishes the history files
        assert recorder.errors_total == 0

    asyncio.run(scenario())
    files = sink.finished_files()
    assert len(files) == 1
    assert files[0].parent.name == f"date={taken[0].as_of.date().isoformat()}"
    assert pq.read_schema(files[0]).remove_metadata() == HISTORY_SCHEMA
    dataset = ds.dataset(files[0].parent, format="parquet")
    rows = sorted(dataset.to_table().to_pylist(), key=lambda r: (r["ts"], r["partition"]))
    expected = [
        {
            "ts": s.as_of.replace(microsecond=s.as_of.microsecond // 1000 * 1000),
            "cluster": "local",
            "group": group,
            "topic": topic,
            "partition": p.partition,
            "log_start_offset": 0,
            "log_end_offset": p.log_end_offset,
            "committed_offset": p.current_offset,
            "lag": p.lag,
            "consumer_id": None,
            "client_id": None,
            "host": None,
        }
        for s in taken
        for p in s.partitions
    ]
    assert rows == expected
    assert [r["lag"] for r in rows] == [3, 0, 0, 4, 0, 0]
    assert [r["log_end_offset"] for r in rows] == [4, 5, 6, 5, 5, 6]
