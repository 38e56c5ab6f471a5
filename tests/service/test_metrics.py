"""``GET /metrics``: the names of docs/metrics.md, read back from the app's own registry."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from lagassign.core.strategies import STRATEGIES
from lagassign.http.app import create_app
from lagassign.http.parts import sidecar_of
from lagassign.metrics.assign import FAILURE_REASONS
from lagassign.settings import Settings
from tests.service.fake_lag_view import FakeLagView, snapshot_of
from tests.service.serving import served

pytestmark = pytest.mark.anyio

AS_OF = datetime(2026, 11, 20, 22, 19, 3, tzinfo=UTC)


def view_with_two_groups() -> FakeLagView:
    view = FakeLagView(
        {
            "orders": snapshot_of("orders", {"t0": [100, None, 40], "t1": [7]}, as_of=AS_OF),
            "audit": snapshot_of("audit", {"log": [0, 0]}, as_of=AS_OF),
        }
    )
    view.kafka_up = False
    view.refresh_errors_total = 3
    return view


async def test_metrics_is_served_at_exactly_its_path_without_redirect() -> None:
    async with served(create_app(Settings.from_environ({}))) as client:
        response = await client.get("/metrics", follow_redirects=False)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    assert "lagassign_build_info{" in response.text


async def test_lag_metrics_are_read_from_the_cached_snapshots_at_scrape_time() -> None:
    view = view_with_two_groups()
    app = create_app(Settings.from_environ({}), lag_view=view)
    async with served(app) as client:
        registry = sidecar_of(app).metrics.registry
        assert registry is not REGISTRY

        def value(name: str, **labels: str) -> float | None:
            found: float | None = registry.get_sample_value(name, labels)
            return found

        assert value("lagassign_group_lag_sum", group="orders") == 147
        assert value("lagassign_group_lag_max", group="orders") == 100
        assert value("lagassign_group_lag_sum", group="audit") == 0
        assert value("lagassign_partition_lag", group="orders", topic="t0", partition="2") == 40
        assert value("lagassign_partition_lag", group="orders", topic="t0", partition="1") is None
        assert (
            value("lagassign_lag_snapshot_timestamp_seconds", group="orders") == AS_OF.timestamp()
        )
        assert value("lagassign_kafka_up") == 0
        assert value("lagassign_lag_refresh_errors_total") == 3

        view.cached["orders"] = snapshot_of("orders", {"t0": [1, 2, 3]}, as_of=AS_OF)
        del view.cached["audit"]
        view.kafka_up = True
        assert value("lagassign_group_lag_sum", group="orders") == 6
        assert value("lagassign_group_lag_sum", group="audit") is None
        assert value("lagassign_kafka_up") == 1

        text = (await client.get("/metrics")).text
    assert 'lagassign_partition_lag{group="orders",partition="0",topic="t0"} 1.0' in text


async def test_the_partition_gauge_can_be_switched_off() -> None:
    app = create_app(
        Settings.from_environ({"LAGASSIGN_PARTITION_METRICS": "false"}),
        lag_view=view_with_two_groups(),
    )
    async with served(app):
        registry = sidecar_of(app).metrics.registry
        assert registry.get_sample_value("lagassign_group_lag_sum", {"group": "orders"}) == 147
        assert (
            registry.get_sample_value(
                "lagassign_partition_lag", {"group": "orders", "topic": "t0", "partition": "0"}
            )
            is None
        )


async def test_the_refresh_histogram_records_what_the_view_reports() -> None:
    app = create_app(Settings.from_environ({}), lag_view=FakeLagView())
    async with served(app):
        sidecar_of(app).metrics.refresh.observe_refresh(0.2, True)
        sidecar_of(app).metrics.refresh.observe_refresh(3.0, False)
    registry = sidecar_of(app).metrics.registry
    assert registry.get_sample_value("lagassign_lag_refresh_duration_seconds_count") == 2
    assert (
        registry.get_sample_value("lagassign_lag_refresh_duration_seconds_bucket", {"le": "0.25"})
        == 1
    )


async def test_every_metric_name_of_the_design_is_exposed() -> None:
    app = create_app(Settings.from_environ({}), lag_view=view_with_two_groups())
    async with served(app) as client:
        await client.post(
            "/assign",
            json={
                "group_id": "orders",
                "members": [{"member_id": "c", "topics": ["t0"]}],
                "partitions": {"t0": 3},
            },
        )
        await client.post("/assign", content=b"[]")
        text = (await client.get("/metrics")).text
    names = {line.split(" ")[2] for line in text.splitlines() if line.startswith("# TYPE ")}
    assert {
        "lagassign_assign_requests_total",
        "lagassign_assign_failures_total",
        "lagassign_assign_duration_seconds",
        "lagassign_assignment_imbalance_ratio",
        "lagassign_assignment_moved_partitions_total",
        "lagassign_group_lag_sum",
        "lagassign_group_lag_max",
        "lagassign_partition_lag",
        "lagassign_lag_refresh_duration_seconds",
        "lagassign_lag_snapshot_timestamp_seconds",
        "lagassign_lag_refresh_errors_total",
        "lagassign_kafka_up",
        "lagassign_build_info",
        "lagassign_consumer_group_members_indexed",
    } <= names
    for counter in ("assign_requests", "assign_failures", "assignment_moved_partitions"):
        assert f"lagassign_{counter}_total{{" in text
    assert "lagassign_lag_refresh_errors_total 3.0" in text
    labels = {
        name
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        for name in sample.labels
    }
    assert labels <= {"group", "topic", "partition", "strategy", "reason", "version", "le"}


ONE_MEMBER = {
    "group_id": "orders",
    "members": [{"member_id": "c", "topics": ["t0"]}],
    "partitions": {"t0": 3},
}


async def test_the_first_failure_of_each_reason_after_a_start_is_an_increase() -> None:
    settings = Settings.from_environ({"LAGASSIGN_MAX_MEMBERS": "1"})
    app = create_app(settings, lag_view=view_with_two_groups())
    too_many = {
        **ONE_MEMBER,
        "members": [*ONE_MEMBER["members"], {"member_id": "d", "topics": ["t0"]}],
    }
    async with served(app) as client:
        # A fresh start: a new registry, read back at two points around the first 413.
        registry = sidecar_of(app).metrics.registry

        def failures(reason: str) -> float | None:
            found: float | None = registry.get_sample_value(
                "lagassign_assign_failures_total", {"reason": reason}
            )
            return found

        # Every reason is there at 0, so the first event is a step from 0.
        assert {r: failures(r) for r in FAILURE_REASONS} == dict.fromkeys(FAILURE_REASONS, 0.0)
        before = failures("too_large")
        assert (await client.post("/assign", json=too_many)).status_code == 413
        after = failures("too_large")
        assert (await client.post("/assign", content=b"{")).status_code == 400
        assert (await client.get("/assign")).status_code == 405
    assert (before, after) == (0.0, 1.0)  # increase() = 1: the first 413 is seen
    assert failures("invalid_json") == 1
    assert failures("method_not_allowed") == 1
    assert failures("unauthorized") == 0


async def test_a_known_groups_answer_counters_start_at_zero_for_every_strategy() -> None:
    settings = Settings.from_environ({"LAGASSIGN_GROUPS": "audit, payments"})
    app = create_app(settings, lag_view=view_with_two_groups())
    async with served(app) as client:
        registry = sidecar_of(app).metrics.registry

        def requests(group: str, strategy: str) -> float | None:
            found: float | None = registry.get_sample_value(
                "lagassign_assign_requests_total", {"group": group, "strategy": strategy}
            )
            return found

        # The groups of LAGASSIGN_GROUPS start at 0 before any answer.
        for group in ("audit", "payments"):
            assert {s: requests(group, s) for s in STRATEGIES} == dict.fromkeys(STRATEGIES, 0.0)
            moved = {"group": group}
            assert (
                registry.get_sample_value("lagassign_assignment_moved_partitions_total", moved) == 0
            )
        assert requests("orders", "balanced") is None
        assert (await client.post("/assign", json=ONE_MEMBER)).status_code == 200
    # A group's first answer also starts the strategies it did not use, for the next one.
    assert requests("orders", "balanced") == 1
    assert requests("orders", "range") == 0
