"""The history rows of a refresh, with the exact schema of docs/history.md."""

from __future__ import annotations

from datetime import UTC, datetime

import pyarrow as pa  # type: ignore[import-untyped]

from lagassign.history.schema import HISTORY_SCHEMA, history_table
from tests.history.builders import group, partition

AS_OF = datetime(2026, 3, 4, 5, 6, 7, 891_234, tzinfo=UTC)


def test_schema_is_the_contract() -> None:
    expected = [
        ("ts", pa.timestamp("ms", tz="UTC"), False),
        ("cluster", pa.string(), False),
        ("group", pa.string(), False),
        ("topic", pa.string(), False),
        ("partition", pa.int32(), False),
        ("log_start_offset", pa.int64(), False),
        ("log_end_offset", pa.int64(), False),
        ("committed_offset", pa.int64(), True),
        ("lag", pa.int64(), False),
        ("consumer_id", pa.string(), True),
        ("client_id", pa.string(), True),
        ("host", pa.string(), True),
    ]
    assert [(f.name, f.type, f.nullable) for f in HISTORY_SCHEMA] == expected


def test_one_row_per_measured_partition() -> None:
    snapshot = group(
        "orders",
        AS_OF,
        [
            partition("t", 0, 5, 0, 12, 7, member="m-1"),
            partition("t", 1, None, 0, 3, 0),
            partition("t", 2, 4, None, None, None),  # never measured
            partition("t", 3, 1, 0, 9, 8, stale=True),  # kept from an earlier refresh
        ],
    )
    failed = group("broken", AS_OF, [partition("t", 0, 1, 0, 2, 1)], error="boom")
    table = history_table([snapshot, failed], "prod")
    assert table.schema == HISTORY_SCHEMA
    assert table.to_pylist() == [
        {
            "ts": datetime(2026, 3, 4, 5, 6, 7, 891_000, tzinfo=UTC),
            "cluster": "prod",
            "group": "orders",
            "topic": "t",
            "partition": 0,
            "log_start_offset": 0,
            "log_end_offset": 12,
            "committed_offset": 5,
            "lag": 7,
            "consumer_id": "m-1",
            "client_id": "client-m-1",
            "host": "/10.0.0.1",
        },
        {
            "ts": datetime(2026, 3, 4, 5, 6, 7, 891_000, tzinfo=UTC),
            "cluster": "prod",
            "group": "orders",
            "topic": "t",
            "partition": 1,
            "log_start_offset": 0,
            "log_end_offset": 3,
            "committed_offset": None,
            "lag": 0,
            "consumer_id": None,
            "client_id": None,
            "host": None,
        },
    ]


def test_no_snapshots_no_rows() -> None:
    table = history_table([], "prod")
    assert table.num_rows == 0
    assert table.schema == HISTORY_SCHEMA
