"""The grouped-map replay on plain pandas frames (no Spark): snapshots, owned, moves."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd  # type: ignore[import-untyped]

from lagassign.core.strategies import STRATEGIES
from lagassign_pipeline.replay import REPLAY_COLUMNS, replay_group, snapshots_of


def rows_at(
    ts_ms: int,
    owners: Sequence[str | None],
    lags: list[int],
    *,
    forecast: list[float] | None = None,
    later: list[int] | None = None,
    topic: str = "t",
) -> list[dict[str, Any]]:
    horizon = None if later is None else ts_ms + 60_000
    return [
        {
            "cluster": "c",
            "group": "g",
            "ts_ms": ts_ms,
            "horizon_ts_ms": horizon,
            "topic": topic,
            "partition": p,
            "consumer_id": owner,
            "lag": lag,
            "forecast_lag": float(lag) if forecast is None else forecast[p],
            "lag_at_horizon": None if later is None else later[p],
        }
        for p, (owner, lag) in enumerate(zip(owners, lags, strict=True))
    ]


def test_a_snapshot_fills_missing_partitions_and_rounds_forecasts() -> None:
    rows = pd.DataFrame(
        rows_at(0, ["m-2", None, "m-1"], [5, 6, 7], forecast=[1.4, -3.0, math.nan], later=[1, 2, 3])
    )
    rows = rows[rows["partition"] != 1]  # partition 1 has no row in this refresh
    later = pd.DataFrame(rows_at(10_000, ["m-1", "m-3"], [1, 2], topic="u"))
    first, second = snapshots_of(pd.concat([later, rows]))
    assert first.ts_ms == 0
    assert first.members == ("m-1", "m-2")
    assert first.partitions == {"t": 3}
    assert first.lags == {"t": [5, 0, 7]}
    assert first.forecast == {"t": [1, 0, 0]}
    assert first.later == {"t": [1, 0, 3]}
    assert (second.ts_ms, second.members, second.partitions) == (10_000, ("m-1", "m-3"), {"u": 2})
    assert second.lags == {"u": [1, 2]}
    assert second.later is None


def test_answers_carry_over_so_unchanged_lags_move_nothing_for_sticky_strategies() -> None:
    owners = ["m-1", "m-1", "m-2", "m-2", "m-3", "m-3"]
    lags = [90, 10, 40, 40, 30, 20]
    frame = pd.DataFrame(
        [r for ts in (0, 10_000, 20_000) for r in rows_at(ts, owners, lags, later=lags)]
    )
    out = replay_group(frame, strategies=tuple(STRATEGIES))
    assert tuple(out.columns) == REPLAY_COLUMNS
    assert len(out) == 3 * len(STRATEGIES) * 2
    first = out[out["ts_ms"] == 0]
    assert (first["moved"] == 0).all()  # nobody owned anything before the first answer
    later = out[out["ts_ms"] > 0]
    for strategy in ("sticky", "balanced", "range", "roundrobin"):
        assert (later[later["strategy"] == strategy]["moved"] == 0).all(), strategy
    assert (out["members"] == 3).all()
    assert (out["partitions"] == 6).all()
    assert (out["mean_lag"] == 230 / 3).all()
    assert (out["realised_max_lag"] == out["max_lag"]).all()  # the same lags a horizon later


def test_a_snapshot_nobody_consumes_is_skipped() -> None:
    frame = pd.DataFrame(rows_at(0, ["m-1", "m-2"], [3, 4]) + rows_at(10_000, [None, None], [5, 6]))
    out = replay_group(frame, strategies=("range",))
    assert out["ts_ms"].tolist() == [0, 0]
    assert out["realised_max_lag"].isna().all()


def test_the_docstring_example() -> None:
    frame = pd.DataFrame(rows_at(0, ["c-1", "c-2", "c-2"], [9, 1, 1]))
    (row,) = replay_group(frame, strategies=("lag-aware",)).query("weights == 'lag'").itertuples()
    assert (row.max_lag, row.mean_lag, row.moved) == (9, 5.5, 0)
    assert round(row.imbalance, 2) == 1.64
