"""The backtest: figures equal the core's own, snapshot picking, and forecast weights' gain."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest
from pyspark.sql import SparkSession
from pyspark.testing import assertDataFrameEqual

from lagassign.core.model import Assignment, Member, make_rebalance
from lagassign.core.stats import AssignmentStats, assignment_stats
from lagassign.core.strategies import STRATEGIES, run_strategy
from lagassign_pipeline.backtest import (
    BACKTEST_COLUMNS,
    BacktestSpec,
    backtest,
    backtest_snapshots,
)
from lagassign_pipeline.rates import RateSpec, partition_rates
from tests.pipeline.histories import at, history_frame, history_row, linear_rows

pytestmark = pytest.mark.spark

# One small group: topic t with 3 partitions, u with 2; m-3 joins at t=30, m-1 leaves at t=50.
TIMES = (0, 10, 20, 30, 40, 50)
LAGS = {
    ("t", 0): (500, 520, 610, 400, 100, 90),
    ("t", 1): (10, 40, 70, 900, 950, 980),
    ("t", 2): (300, 300, 300, 300, 300, 0),
    ("u", 0): (0, 5, 800, 820, 60, 70),
    ("u", 1): (250, 200, 150, 100, 50, 700),
}
MEMBERS = {0: ["m-1", "m-2"], 10: ["m-1", "m-2"], 20: ["m-1", "m-2"]}
MEMBERS.update({30: ["m-1", "m-2", "m-3"], 40: ["m-1", "m-2", "m-3"], 50: ["m-2", "m-3"]})
HORIZON_S = 20


def small_group_rows() -> list[dict[str, Any]]:
    rows = []
    for i, s in enumerate(TIMES):
        members = MEMBERS[s]
        for k, ((topic, p), lags) in enumerate(sorted(LAGS.items())):
            end = 10_000 + 100 * s
            owner = members[k % len(members)]
            rows.append(
                history_row(s, end, end - lags[i], topic=topic, partition=p, consumer=owner)
            )
    return rows


# The backtest's columns that are the core's assignment statistics of the same name.
STATS_COLUMNS = [f.name for f in fields(AssignmentStats) if f.name in BACKTEST_COLUMNS]


def expected_from_the_core() -> list[dict[str, Any]]:
    """Every strategy run directly with the core over the snapshots, answers carried."""
    out = []
    for strategy in STRATEGIES:
        before: Assignment = {}
        for i, s in enumerate(TIMES):
            topics = ("t", "u")
            members = [
                Member(m, topics, owned={t: tuple(ps) for t, ps in before.get(m, {}).items()})
                for m in MEMBERS[s]
            ]
            counts = {"t": 3, "u": 2}
            lags = {t: [LAGS[(t, p)][i] for p in range(n)] for t, n in counts.items()}
            rebalance = make_rebalance(members, counts, lags)
            result = run_strategy(strategy, rebalance)
            stats = assignment_stats(rebalance, result)
            realised: tuple[int | None, float | None] = (None, None)
            later = i + HORIZON_S // 10
            if later < len(TIMES):
                later_lags = {t: [LAGS[(t, p)][later] for p in range(n)] for t, n in counts.items()}
                plain = [Member(m, topics) for m in MEMBERS[s]]
                at_horizon = assignment_stats(make_rebalance(plain, counts, later_lags), result)
                realised = (at_horizon.max_lag, at_horizon.imbalance)
            out.append(
                {
                    "cluster": "c",
                    "group": "g",
                    "ts": at(s),
                    "strategy": strategy,
                    "weights": "lag",
                    **{name: getattr(stats, name) for name in STATS_COLUMNS},
                    "realised_max_lag": realised[0],
                    "realised_imbalance": realised[1],
                }
            )
            before = result.assignment
    return out


def test_the_backtest_of_a_small_group_equals_the_core_run_directly(spark: SparkSession) -> None:
    history = history_frame(spark, small_group_rows())
    rates = partition_rates(history, RateSpec(window_s=30, max_gap_s=60, horizon_s=HORIZON_S))
    result = backtest(rates, BacktestSpec(horizon_s=HORIZON_S)).cache()
    assert tuple(result.columns) == BACKTEST_COLUMNS
    assert result.count() == len(TIMES) * len(STRATEGIES) * 2
    assert result.where("moved > 0 and weights = 'lag'").count() > 0  # answers were carried
    columns = list(BACKTEST_COLUMNS[:-1])
    got = result.where("weights = 'lag'").select(*columns)
    want = expected_from_the_core()
    schema = got.schema
    assertDataFrameEqual(
        got, spark.createDataFrame([tuple(r[c] for c in columns) for r in want], schema)
    )
    result.unpersist()


def test_snapshots_are_picked_every_n_and_newest_last(spark: SparkSession) -> None:
    rows = linear_rows(range(0, 70, 10), produce=1, consume=1, backlog=0)
    rows += linear_rows(range(0, 30, 10), produce=1, consume=1, backlog=0, group="h")
    rates = partition_rates(history_frame(spark, rows), RateSpec())
    picked = backtest_snapshots(rates, BacktestSpec(horizon_s=15, every=2, last=2))
    got = sorted(
        (r["group"], r["ts_ms"] // 1000 - int(at(0).timestamp()), r["horizon_ts_ms"])
        for r in picked.collect()
    )
    base = int(at(0).timestamp()) * 1000
    # g: indices 0..6, every 2nd -> 0, 2, 4, 6 -> newest two: 40 s and 60 s.
    # h: indices 0..2 -> 0, 2 -> both.
    # The horizon: the first refresh at least 15 s later (none past the history's end).
    assert got == [
        ("g", 40, base + 60_000),
        ("g", 60, None),
        ("h", 0, base + 20_000),
        ("h", 20, None),
    ]


def test_forecast_weights_beat_the_lag_of_the_instant_on_fast_growing_partitions(
    spark: SparkSession,
) -> None:
    """Ground truth: two hot partitions grow 100/s, one cold partition holds 10,000.

    At t < 80 s the hot partitions' lag (2,000 + 100 t) is below the cold one's, so
    the lags of the instant pair both hot partitions on one member; their forecast
    (120 s ahead) is 12,000 higher, which splits them. One horizon later the hot
    partitions hold 14,000 + 100 t each: paired, 28,000 + 200 t; split, 24,000 + 100 t.
    """
    times = range(0, 200, 10)
    rows = linear_rows(times, produce=100, consume=100, backlog=10_000, consumer="m-1")
    for p in (1, 2):
        rows += linear_rows(
            times, produce=200, consume=100, backlog=2_000, partition=p, consumer="m-2"
        )
    history = history_frame(spark, rows)
    rates = partition_rates(history, RateSpec(window_s=30, max_gap_s=60, horizon_s=120))
    spec = BacktestSpec(horizon_s=120, strategies=("lag-aware", "balanced"))
    replayed = backtest(rates, spec).where("realised_max_lag is not null")
    realised: dict[tuple[str, str], dict[int, int]] = {}
    for r in replayed.collect():
        seconds = round((r["ts"] - at(0).replace(tzinfo=None)).total_seconds())
        realised.setdefault((r["strategy"], r["weights"]), {})[seconds] = r["realised_max_lag"]
    for strategy in spec.strategies:
        by_lag, by_forecast = realised[(strategy, "lag")], realised[(strategy, "forecast")]
        assert sorted(by_lag) == list(range(0, 80, 10))  # the history ends at 190 s
        # t = 0: no rate is known yet, the forecast is the lag itself
        assert by_forecast[0] == by_lag[0] == 28_000
        for t in range(10, 80, 10):
            assert by_lag[t] == 28_000 + 200 * t, (strategy, t)
            assert by_forecast[t] == 24_000 + 100 * t, (strategy, t)
        assert sum(by_forecast.values()) < sum(by_lag.values())
