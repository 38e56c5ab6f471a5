"""Builders of small lag histories with known rates, for the pipeline tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from lagassign_pipeline.history import HISTORY_SCHEMA

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(seconds: float) -> datetime:
    """The moment ``seconds`` after :data:`T0`."""
    return T0 + timedelta(seconds=seconds)


def history_row(
    seconds: float,
    end: int,
    committed: int | None,
    *,
    partition: int = 0,
    topic: str = "t",
    group: str = "g",
    cluster: str = "c",
    consumer: str | None = "m-1",
    lag: int | None = None,
) -> dict[str, Any]:
    """One history row; ``lag`` defaults to ``end - committed`` (0 without a commit)."""
    if lag is None:
        lag = 0 if committed is None else max(0, end - committed)
    return {
        "ts": at(seconds),
        "cluster": cluster,
        "group": group,
        "topic": topic,
        "partition": partition,
        "log_start_offset": 0,
        "log_end_offset": end,
        "committed_offset": committed,
        "lag": lag,
        "consumer_id": consumer,
        "client_id": None if consumer is None else f"client-{consumer}",
        "host": None,
    }


def linear_rows(
    times: Iterable[float],
    *,
    produce: float,
    consume: float,
    backlog: int,
    end_at_zero: int = 1_000,
    **where: Any,
) -> list[dict[str, Any]]:
    """Rows of a partition whose log end grows ``produce``/s and commits ``consume``/s."""
    rows = []
    for s in times:
        end = end_at_zero + round(produce * s)
        committed = end_at_zero - backlog + round(consume * s)
        rows.append(history_row(s, end, committed, **where))
    return rows


def history_frame(spark: SparkSession, rows: Sequence[dict[str, Any]]) -> DataFrame:
    """The rows as a DataFrame with the history schema."""
    return spark.createDataFrame(
        [tuple(r[f.name] for f in HISTORY_SCHEMA.fields) for r in rows], HISTORY_SCHEMA
    )
