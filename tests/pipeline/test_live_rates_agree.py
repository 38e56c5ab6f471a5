"""The sidecar's live rates and the pipeline's rates agree on the same recorded history.

One synthetic group is written by the service's own history sink (the rows the
pipeline reads), and fed, snapshot by snapshot, to the live rate window. The
history has steady production, a consumer that speeds up, an offset reset, a
deleted and recreated topic (the log end moves back), an outage of the sidecar
(a gap), a partition added half way and a partition without commits.

Without thinning (points closer than the refresh interval), the live produce and
consume rates equal the pipeline's at every refresh (``EXACT``: float rounding
only). With the default window (64 points over 15 minutes, so refreshes every
10 s are merged into points about 14 s apart) they stay within ``THINNED``
(relative) of the pipeline's.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from lagassign.history.parquet import ParquetHistorySink
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot, PartitionLag
from lagassign.rates.window import RateWindow
from lagassign_pipeline.history import read_history
from lagassign_pipeline.rates import RateSpec, partition_rates

pytestmark = pytest.mark.spark

T0 = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
INTERVAL_S = 10
EXACT = 1e-9
THINNED = 0.05


def offsets(i: int) -> dict[int, tuple[int, int | None]]:
    """Partition -> (log end, committed) at refresh ``i``."""
    t = i * INTERVAL_S
    out: dict[int, tuple[int, int | None]] = {}
    # p0: 20/s, the group consumes 10/s then 30/s; an offset reset back at refresh 40.
    end0 = 5_000 + 20 * t
    committed0 = 1_000 + (10 * t if t < 300 else 3_000 + 30 * (t - 300))
    if i >= 40:
        committed0 -= 2_000
    out[0] = (end0, min(committed0, end0))
    # p1: recreated at refresh 25 (log end drops to 0, then 5/s); committed stays.
    end1 = 800 + 7 * t if i < 25 else 5 * (t - 250)
    out[1] = (end1, 500)
    # p2: added at refresh 30, 3/s, never committed.
    if i >= 30:
        out[2] = (3 * (t - 300), None)
    return out


def snapshot(i: int) -> GroupSnapshot:
    rows = tuple(
        PartitionLag(
            "t",
            p,
            committed,
            end,
            0,
            None if committed is None else max(0, end - committed),
            "m-1",
            None,
            "client-m-1",
        )
        for p, (end, committed) in sorted(offsets(i).items())
    )
    return GroupSnapshot(
        group_id="g",
        as_of=T0 + timedelta(seconds=i * INTERVAL_S),
        state="Stable",
        protocol_type="classic",
        assignment_strategy="range",
        members=(),
        partitions=rows,
    )


# Refreshes 0..59, with the sidecar down for refreshes 15..21 (a 80 s gap).
REFRESHES = [i for i in range(60) if not 15 <= i <= 21]


def live_figures(window: RateWindow) -> dict[tuple[int, int], tuple[float | None, float | None]]:
    """(refresh, partition) -> (produce, consume) as the window says right after each refresh."""
    out = {}
    for i in REFRESHES:
        shot = snapshot(i)
        asyncio.run(window.refreshed(Refresh(0.0, True, [shot])))
        for (_, p), f in window.rates_of(shot).items():
            out[(i, p)] = (f.produce_rate, f.consume_rate)
    return out


def pipeline_figures(
    spark: SparkSession, tmp_path: Path, window_s: float, max_gap_s: float
) -> dict[tuple[int, int], tuple[float | None, float | None]]:
    sink = ParquetHistorySink(tmp_path / "history", "c")
    for i in REFRESHES:
        sink.append([snapshot(i)])
    sink.close()
    history = read_history(spark, tmp_path / "history")
    spec = RateSpec(window_s=window_s, max_gap_s=max_gap_s, horizon_s=60)
    rows = partition_rates(history, spec).collect()
    return {
        (round((r["ts"].astimezone(UTC) - T0).total_seconds()) // INTERVAL_S, r["partition"]): (
            r["produce_rate"],
            r["consume_rate"],
        )
        for r in rows
    }


def differences(
    live: dict[tuple[int, int], tuple[float | None, float | None]],
    batch: dict[tuple[int, int], tuple[float | None, float | None]],
) -> list[tuple[tuple[int, int], float | None, float | None]]:
    assert batch.keys() <= live.keys()
    out = []
    for key in sorted(batch):
        for a, b in zip(live[key], batch[key], strict=True):
            if (a is None) != (b is None):
                out.append((key, a, b))
            elif a is not None and b is not None:
                out.append((key, a, b)) if abs(a - b) > EXACT * max(1.0, abs(b)) else None
    return out


def test_live_rates_equal_the_pipeline_rates_without_thinning(
    spark: SparkSession, tmp_path: Path
) -> None:
    window = RateWindow(window_s=300, max_points=300, refresh_interval_s=INTERVAL_S)
    live = live_figures(window)
    batch = pipeline_figures(spark, tmp_path, 300, window.max_gap_ms / 1000)
    assert differences(live, batch) == []
    assert len(batch) > 100
    # Nothing negative; the new partition has no rate at its first refresh, and its
    # consume rate stays null (never committed, so its lag is unknown and the history
    # leaves its rows out).
    assert all(v is None or v >= 0 for pair in live.values() for v in pair)
    assert live[(30, 2)] == (None, None)
    assert live[(59, 2)] == (3.0, None)


def test_live_rates_with_the_default_thinning_stay_close(
    spark: SparkSession, tmp_path: Path
) -> None:
    window = RateWindow(refresh_interval_s=INTERVAL_S)  # 900 s, 64 points: ~14 s apart
    live = live_figures(window)
    batch = pipeline_figures(spark, tmp_path, 900, window.max_gap_ms / 1000)
    far = []
    for key, (a, b) in {k: (live[k][0], batch[k][0]) for k in batch}.items():
        if (a is None) != (b is None) or (
            a is not None and b is not None and abs(a - b) > THINNED * max(1.0, abs(b))
        ):
            far.append((key, a, b))
    for key, (a, b) in {k: (live[k][1], batch[k][1]) for k in batch}.items():
        if (a is None) != (b is None) or (
            a is not None and b is not None and abs(a - b) > THINNED * max(1.0, abs(b))
        ):
            far.append((key, a, b))
    assert far == []
