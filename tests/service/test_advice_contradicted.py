"""The advice never acts on a forecast that contradicts the live lag it can see.

``c-1`` holds ``t0-0`` and ``t0-1``, ``c-2`` holds ``t0-2`` and ``t0-3``. The forecast
(600 s horizon, read from its file) says ``t0-0`` and ``t0-1`` will be empty and
``c-2``'s partitions 1,000 behind: by the forecast, moving one of ``c-2``'s partitions
halves the worst member (a 50 % gain). The live lag of ``t0-0`` is 2,030 at the last
of 11 refreshes a second apart: when it grows (5 records/s produced, 2 read) a
forecast of 0 is contradicted and the advice is not to rebalance, naming the
partition; when it drains (2 produced, 5 read) the forecast stands and is advised.
Real parts: the forecast source, the rate window fed refresh by refresh, the tracker.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from lagassign.forecast.source import ForecastSource
from lagassign.groups.advice import AdvicePolicy
from lagassign.groups.advice_tracker import AdviceTracker
from lagassign.groups.advice_weights import contradicted
from lagassign.http.schemas_advice import AdviceOut
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.rates.window import RateWindow
from tests.service.group_builders import AS_OF, lag_row, snapshot_of
from tests.service.weights_file import one_group_weights

SKEWED = {"c-1": {"t0": [0, 1]}, "c-2": {"t0": [2, 3]}}
POLICY = AdvicePolicy(min_gain=0.3, hold_s=0, cooldown_s=0, strategy="balanced")
FORECAST = {"t0": (0, 0, 1000, 1000)}
REFRESHES = 11


def shots(produce: int, read: int) -> list[GroupSnapshot]:
    """``t0-0`` from lag 2,000 at the first refresh, gaining ``produce - read`` a second."""
    out = []
    for i in range(REFRESHES):
        committed = 1000 + read * i
        lag = 2000 + (produce - read) * i
        rows = (
            lag_row("t0", 0, lag, "c-1", committed=committed, end=committed + lag),
            lag_row("t0", 1, 100, "c-1", committed=500, end=600),
            lag_row("t0", 2, 1000, "c-2", committed=0, end=1000),
            lag_row("t0", 3, 1000, "c-2", committed=0, end=1000),
        )
        at = AS_OF + timedelta(seconds=i)
        out.append(replace(snapshot_of("g", SKEWED, {}, as_of=at), partitions=rows))
    return out


def advice_after(tmp_path: Path, produce: int, read: int) -> AdviceOut:
    path = one_group_weights(
        tmp_path / "weights.json",
        "g",
        FORECAST,
        as_of=AS_OF,
        horizon_s=600.0,
        window_s=600.0,
        cluster="local",
    )
    refreshes = shots(produce, read)
    last = refreshes[-1].as_of
    forecast = ForecastSource(path, max_age_s=600.0, cluster="local", clock=lambda: last)
    forecast.reload()
    window = RateWindow(refresh_interval_s=1)
    for s in refreshes:
        asyncio.run(window.refreshed(Refresh(0.0, True, [s])))
    tracker = AdviceTracker(POLICY, clock=lambda: last)
    tracker.weigh_with(forecast, window, "drain")
    tracker.observe(Refresh(0.1, True, (refreshes[-1],)), kafka_up=True, groups={"g"})
    advice = tracker.advice_of("g")
    assert advice is not None
    assert [p.lag for p in refreshes[-1].partitions] == [
        2030 if produce > read else 1970,
        100,
        1000,
        1000,
    ]
    return AdviceOut.of(advice)


def test_a_forecast_of_0_for_a_growing_lag_is_not_acted_on(tmp_path: Path) -> None:
    advice = advice_after(tmp_path, produce=5, read=2)
    assert advice.advised is False
    assert advice.lag_source == "forecast"
    assert advice.reason == (
        "the forecast of t0-0 (0) is below its live lag (2,030, growing 3.0 records/s), "
        "1 partition(s) so: no advice on that forecast"
    )


def test_the_same_forecast_for_a_draining_lag_is_acted_on(tmp_path: Path) -> None:
    advice = advice_after(tmp_path, produce=2, read=5)
    assert advice.lag_source == "forecast"
    assert advice.advised is True
    assert advice.worst_lag_now == 2000
    assert advice.worst_lag_after == 1000


def test_a_forecast_at_or_above_the_live_lag_is_no_contradiction() -> None:
    growing = shots(5, 2)[-1]
    assert contradicted(growing, {"t0": (2030, 100, 1000, 1000)}, lambda t, p: (5.0, 2.0)) is None
    assert contradicted(growing, FORECAST, lambda t, p: (None, 2.0)) is None  # rate unknown
    both = contradicted(growing, {"t0": (0, 0, 0, 0)}, lambda t, p: (5.0, 2.0))
    assert both is not None
    assert both.startswith("the forecast of t0-0 (0) is below its live lag (2,030")
    assert "4 partition(s) so" in both
