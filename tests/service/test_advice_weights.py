"""The advice weighs what ``POST /assign`` balances: forecast, load, or lag.

The module's example: ``c-1`` holds ``t0-0`` and ``t0-1`` (lags 900 and 800), ``c-2``
holds ``t0-2`` and ``t0-3`` (lags 10 and 10). By lag the worst member is ``c-1``
(1700); with 20 records/s arriving on ``c-2``'s partitions and a 60 s horizon, ``c-2``
weighs 2 x 1210 = 2420 and ``c-1`` 1700; the load-balanced answer (worst 2110, a 13 %
gain) is not advised at a 30 % share, while the same group by lag is (46 %).
"""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import timedelta
from pathlib import Path

import pytest

from lagassign.forecast.source import ForecastSource
from lagassign.groups.advice import AdvicePolicy, advise
from lagassign.groups.advice_tracker import AdviceTracker
from lagassign.groups.advice_weights import forecast_covers, weighed
from lagassign.groups.assignment_digest import assignment_digest
from lagassign.http.schemas_advice import AdviceOut
from lagassign.lagview.listeners import Refresh
from lagassign.rates.window import RateWindow
from tests.service.group_builders import AS_OF, lag_row, snapshot_of
from tests.service.weights_file import one_group_weights

SKEWED = {"c-1": {"t0": [0, 1]}, "c-2": {"t0": [2, 3]}}
SNAPSHOT = snapshot_of("g", SKEWED, {"t0": [900, 800, 10, 10]})
POLICY = AdvicePolicy(min_gain=0.3, hold_s=0, cooldown_s=0, strategy="balanced")
RATES = {("t0", 2): 20.0, ("t0", 3): 20.0}


def rate(topic: str, partition: int) -> float | None:
    return RATES.get((topic, partition))


def lags(snapshot: object) -> list[int | None]:
    return [p.lag for p in snapshot.partitions]  # type: ignore[attr-defined]


def test_load_adds_the_arrivals_over_the_horizon_where_the_rate_is_known() -> None:
    loaded, source = weighed(SNAPSHOT, produce_rate=rate, horizon_s=60.0)
    assert source == "kafka-load"
    assert lags(loaded) == [900, 800, 1210, 1210]
    assert lags(SNAPSHOT) == [900, 800, 10, 10]  # the snapshot itself is unchanged


def test_a_fresh_forecast_covering_every_partition_comes_first() -> None:
    forecast = {"t0": (100, 100, 2000, 2000)}
    assert forecast_covers(SNAPSHOT, forecast)
    weights, source = weighed(SNAPSHOT, forecast=forecast, produce_rate=rate, horizon_s=60.0)
    assert source == "forecast"
    assert lags(weights) == [100, 100, 2000, 2000]


def test_a_partial_forecast_is_not_used() -> None:
    partial = {"t0": (100, None, 2000, 2000)}
    assert not forecast_covers(SNAPSHOT, partial)
    assert weighed(SNAPSHOT, forecast=partial)[1] == "kafka"
    assert weighed(SNAPSHOT, forecast={"t0": (1, 2, 3)})[1] == "kafka"


def test_unknown_lag_stays_unknown() -> None:
    unknown = snapshot_of("g", SKEWED, {"t0": [900, None, 10, 10]})
    loaded, _ = weighed(unknown, produce_rate=rate, horizon_s=60.0)
    assert lags(loaded) == [900, None, 1210, 1210]
    forecast, _ = weighed(unknown, forecast={"t0": (5, 5, 5, 5)})
    assert lags(forecast) == [5, None, 5, 5]


def test_load_changes_the_advice() -> None:
    by_lag = advise("g", SNAPSHOT, None, now=AS_OF, kafka_up=True, policy=POLICY)
    assert by_lag.advice.advised is True
    assert by_lag.advice.lag_source == "kafka"
    loaded, source = weighed(SNAPSHOT, produce_rate=rate, horizon_s=60.0)
    by_load = advise("g", loaded, None, now=AS_OF, kafka_up=True, policy=POLICY, lag_source=source)
    body = AdviceOut.of(by_load.advice).model_dump()
    assert body["advised"] is False
    assert body["lag_source"] == "kafka-load"
    assert body["worst_lag_now"] == 2420
    assert body["worst_lag_after"] == 2110
    assert "worst member's load by 13%" in body["reason"]


def test_the_tracker_weighs_by_fresh_forecast_weights_read_from_their_file(
    tmp_path: Path,
) -> None:
    # By lag the group is balanced (no advice); the forecast says c-1's partitions will
    # pile up, and the advice follows the forecast, as /assign would.
    balanced = snapshot_of("g", SKEWED, {"t0": [10, 10, 10, 10]})
    path = one_group_weights(
        tmp_path / "weights.json",
        "g",
        {"t0": (900, 800, 10, 10)},
        as_of=AS_OF,
        window_s=600.0,
        cluster="local",
    )
    forecast = ForecastSource(path, max_age_s=600.0, cluster="local", clock=lambda: AS_OF)
    forecast.reload()
    tracker = AdviceTracker(POLICY, clock=lambda: AS_OF + timedelta(seconds=1))
    tracker.observe(
        Refresh(duration_s=0.1, ok=True, fresh=(balanced,)), kafka_up=True, groups={"g"}
    )
    plain = tracker.advice_of("g")
    assert plain is not None
    assert plain.advised is False
    assert plain.lag_source == "kafka"

    tracker = AdviceTracker(POLICY, clock=lambda: AS_OF + timedelta(seconds=1))
    tracker.weigh_with(forecast, None)
    tracker.observe(
        Refresh(duration_s=0.1, ok=True, fresh=(balanced,)), kafka_up=True, groups={"g"}
    )
    weighed_advice = tracker.advice_of("g")
    assert weighed_advice is not None
    assert weighed_advice.lag_source == "forecast"
    assert weighed_advice.worst_lag_now == 1700
    assert weighed_advice.advised is True


def test_the_advice_names_the_digest_of_the_assignment_it_weighed() -> None:
    # The same values as the Java shim's AssignmentDigestTest: the two must agree.
    assert assignment_digest([("c-1", "t0", 0), ("c-2", "t0", 1)]) == "72ad50af9b0c62e8"
    unordered = [("c-2", "t0", 10), ("c-2", "t0", 2), ("c-1", "t1", 0)]
    assert assignment_digest(unordered) == "f3e1456c923a0402"
    advised = advise("g", SNAPSHOT, None, now=AS_OF, kafka_up=True, policy=POLICY).advice
    body = AdviceOut.of(advised).model_dump()
    live = [("c-1", "t0", 0), ("c-1", "t0", 1), ("c-2", "t0", 2), ("c-2", "t0", 3)]
    assert body["assignment_digest"] == assignment_digest(live)
    stale = advise("g", None, None, now=AS_OF, kafka_up=True, policy=POLICY).advice
    assert AdviceOut.of(stale).model_dump()["assignment_digest"] is None


def test_under_drain_the_tracker_weighs_drain_weights_and_projects_seconds() -> None:
    # c-1 reads 100 records/s off a 10,000 backlog on t0-0 (t0-1 stays 800 behind); c-2
    # keeps 10 behind on t0-2 and t0-3, each produced to at 50 records/s. Both read 100
    # records/s with lag to read: the capacity. At the last refresh: lags 9,000, 800, 10,
    # 10; 9,820 records over 2 x 100 - 100 records/s to spare: a 98.2 s horizon.
    window = RateWindow(refresh_interval_s=1)
    shots = []
    for i in range(11):
        rows = (
            lag_row("t0", 0, None, "c-1", committed=10_000 + 100 * i, end=20_000),
            lag_row("t0", 1, 800, "c-1", committed=0, end=800),
            lag_row("t0", 2, 10, "c-2", committed=990 + 50 * i, end=1_000 + 50 * i),
            lag_row("t0", 3, 10, "c-2", committed=990 + 50 * i, end=1_000 + 50 * i),
        )
        rows = (dataclasses.replace(rows[0], lag=10_000 - 100 * i), *rows[1:])
        shots.append(
            dataclasses.replace(SNAPSHOT, as_of=AS_OF + timedelta(seconds=i), partitions=rows)
        )
    for s in shots:
        asyncio.run(window.refreshed(Refresh(0.0, True, [s])))
    tracker = AdviceTracker(POLICY, clock=lambda: shots[-1].as_of)
    tracker.weigh_with(None, window, "drain")
    tracker.observe(
        Refresh(duration_s=0.1, ok=True, fresh=(shots[-1],)), kafka_up=True, groups={"g"}
    )
    advice = tracker.advice_of("g")
    assert advice is not None
    assert advice.lag_source == "kafka-drain"
    # c-2: 2 x (10 + 50 x 98.2) = 9,840 outweighs c-1's 9,800
    assert advice.worst_lag_now == 9_840
    assert advice.catch_up_now_s == pytest.approx(98.4)
    assert "drain weight" in advice.reason
