"""The rates in /groups (JSON and page), the metrics, the load model and the settings."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from lagassign.assign.lag_sources import LagSource
from lagassign.groups.live_assignment import live_assignment
from lagassign.groups.page import render_group
from lagassign.groups.rates import group_rates
from lagassign.groups.report import group_report
from lagassign.groups.sparkline import lag_sparkline
from lagassign.http.schemas_group import GroupOut
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot, PartitionLag
from lagassign.metrics.rates import RatesCollector
from lagassign.rates.load import with_load
from lagassign.rates.partition_window import PartitionRates
from lagassign.rates.totals import total
from lagassign.rates.window import RateWindow
from lagassign.settings import Settings, SettingsError
from tests.service.fake_lag_view import FakeLagView
from tests.service.group_builders import member

T0 = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def shot(i: int) -> GroupSnapshot:
    """c-1 holds t-0 (10 records/s, paused at 0), c-2 holds t-1 (idle, no lag)."""
    end0 = 10 * 10 * i
    rows = (
        PartitionLag("t", 0, 0, end0, 0, end0, "c-1", "/h", "client-c-1"),
        PartitionLag("t", 1, 50, 50, 0, 0, "c-2", "/h", "client-c-2"),
    )
    return GroupSnapshot(
        group_id="g",
        as_of=T0 + timedelta(seconds=10 * i),
        state="Stable",
        protocol_type="classic",
        assignment_strategy="lagassign",
        members=(member("c-1", {"t": [0]}), member("c-2", {"t": [1]})),
        partitions=rows,
    )


def filled() -> tuple[RateWindow, GroupSnapshot]:
    window = RateWindow(window_s=300, max_points=60, refresh_interval_s=10)
    for i in range(7):
        asyncio.run(window.refreshed(Refresh(0.0, True, [shot(i)])))
    return window, shot(6)


def test_totals_worked_example() -> None:
    t = total(
        [
            PartitionRates(12.5, 10.0, 8.0),
            PartitionRates(None, 4.0, None),
            PartitionRates(0.0, 0.0, 0.0),
        ]
    )
    assert (t.produce_rate, t.consume_rate, t.lag_seconds_max, t.lag_seconds_unknown) == (
        14.0,
        8.0,
        12.5,
        1,
    )
    assert total([]).lag_seconds_max is None


def test_report_json_has_rates_per_partition_member_and_group() -> None:
    window, snapshot = filled()
    rates = group_rates(snapshot, window, live_assignment(snapshot))
    built = group_report(
        "g", snapshot, [], default_strategy="balanced", now=snapshot.as_of, rates=rates
    )
    report = GroupOut.of(built, None).model_dump()
    p0, p1 = report["partitions"]
    assert (p0["lag_seconds"], p0["produce_rate"], p0["consume_rate"]) == (60.0, 10.0, 0.0)
    assert (p1["lag_seconds"], p1["produce_rate"], p1["consume_rate"]) == (0.0, 0.0, 0.0)
    by_member = {m["member_id"]: m for m in report["members"]}
    assert by_member["c-1"]["lag_seconds_max"] == 60.0
    assert by_member["c-1"]["produce_rate"] == 10.0
    assert by_member["c-2"]["lag_seconds_max"] == 0.0
    assert report["rates"]["lag_seconds_max"] == 60.0
    assert report["rates"]["window_seconds"] == 300.0
    assert [lag for _, lag in rates.lines["c-1"]] == [0, 100, 200, 300, 400, 500, 600]


def test_report_without_a_window_says_null_not_zero() -> None:
    snapshot = shot(3)
    report = GroupOut.of(
        group_report("g", snapshot, [], default_strategy="balanced", now=T0), None
    ).model_dump()
    assert report["partitions"][0]["lag_seconds"] is None
    assert report["partitions"][0]["produce_rate"] is None
    assert report["members"][0]["lag_seconds_max"] is None


def test_page_shows_time_lag_and_an_svg_line_per_member_without_script() -> None:
    window, snapshot = filled()
    rates = group_rates(snapshot, window, live_assignment(snapshot))
    page = render_group(
        group_report("g", snapshot, [], default_strategy="balanced", now=T0, rates=rates)
    )
    assert "<script" not in page
    assert page.count('<svg class="lag-line"') == 2  # c-2's is flat at 0
    assert 'data-member="c-1" data-points="7"' in page
    assert "worst time lag (s)" in page
    assert '<td class="num">60.0</td>' in page


def test_sparkline_worked_example() -> None:
    line = lag_sparkline([(0, 0), (10_000, 50), (20_000, 100)])
    assert line is not None
    assert line.points == "2.0,22.0 60.0,12.0 118.0,2.0"
    assert line.title == "lag over 20 s: 0 to 100"
    assert lag_sparkline([(0, 5)]) is None


def test_metrics_worst_time_lag_and_rates_behind_the_switch() -> None:
    window, snapshot = filled()
    for switch in (True, False):
        registry = CollectorRegistry(auto_describe=False)
        view = FakeLagView({"g": snapshot})
        registry.register(RatesCollector(view, window, partition_metrics=switch))
        text = generate_latest(registry).decode()
        assert 'lagassign_group_lag_seconds_max{group="g"} 60.0' in text
        assert 'lagassign_group_produce_rate{group="g"} 10.0' in text
        assert 'lagassign_group_consume_rate{group="g"} 0.0' in text
        line = 'lagassign_partition_lag_seconds{group="g",partition="0",topic="t"} 60.0'
        assert (line in text) is switch


def test_load_model_adds_produce_rate_times_horizon() -> None:
    window, _ = filled()
    kafka = LagSource(source="kafka", lags={"t": [600, 0, 7]})
    loaded = with_load(kafka, "g", window, 60.0)
    # t-0: 600 + 10/s x 60 s; t-1: idle; t-2: unknown to the window, keeps its lag.
    assert loaded.source == "kafka-load"
    assert loaded.lags == {"t": [1_200, 0, 7]}
    forecast = LagSource(source="forecast", lags={"t": [1, 2]})
    assert with_load(forecast, "g", window, 60.0) is forecast


def test_settings_lag_model_and_window() -> None:
    s = Settings.from_environ({"LAGASSIGN_LAG_MODEL": "load", "LAGASSIGN_RATE_WINDOW_S": "600"})
    assert (s.lag_model, s.rate_window_s, s.load_horizon_s) == ("load", 600.0, 60.0)
    assert Settings.from_environ({}).lag_model == "drain"
    with pytest.raises(SettingsError, match="LAGASSIGN_LAG_MODEL"):
        Settings.from_environ({"LAGASSIGN_LAG_MODEL": "forecast"})
