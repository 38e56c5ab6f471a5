"""``/livez`` never touches Kafka; ``/readyz`` follows the lag view's health."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from lagassign.http.app import create_app
from lagassign.http.health import readiness_problem
from lagassign.settings import Settings
from tests.service.fake_lag_view import FakeLagView
from tests.service.serving import served

pytestmark = pytest.mark.anyio

SETTINGS = Settings.from_environ(
    {"LAGASSIGN_REFRESH_INTERVAL_S": "10", "LAGASSIGN_KAFKA_TIMEOUT_MS": "5000"}
)
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


async def test_livez_answers_even_when_the_lag_view_is_broken() -> None:
    view = FakeLagView()
    view.snapshot_error = ConnectionError("broker gone")
    view.first_snapshot_loaded = False
    view.kafka_up = False
    async with served(create_app(SETTINGS, lag_view=view)) as client:
        response = await client.get("/livez")
    assert response.status_code == 200
    assert response.json() == {"status": "alive"}


async def test_readyz_is_503_with_the_reason_until_the_first_snapshot() -> None:
    view = FakeLagView()
    view.first_snapshot_loaded = False
    view.last_refresh_ok = None
    view.last_refresh_error = "KafkaConnectionError: Unable to bootstrap from 127.0.0.1:1"
    async with served(create_app(SETTINGS, lag_view=view)) as client:
        waiting = await client.get("/readyz")
        view.first_snapshot_loaded = True
        view.last_refresh_ok = datetime.now(UTC)
        view.last_refresh_error = None
        ready = await client.get("/readyz")
    assert waiting.status_code == 503
    error = waiting.json()["error"]
    assert error["code"] == "unavailable"
    assert error["message"] == "the lag view has not loaded its first snapshot yet"
    assert error["details"]["last_refresh_error"].startswith("KafkaConnectionError")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "lag_view": "on"}


def test_readiness_allows_three_refresh_intervals_and_one_kafka_timeout() -> None:
    view = FakeLagView()
    view.last_refresh_ok = NOW - timedelta(seconds=34)
    assert readiness_problem(view, SETTINGS, NOW) is None
    view.last_refresh_ok = NOW - timedelta(seconds=36)
    assert readiness_problem(view, SETTINGS, NOW) == (
        "Kafka has not answered a lag refresh for 36 s (limit 35 s)"
    )
    view.last_refresh_ok = None
    assert readiness_problem(view, SETTINGS, NOW) == "Kafka has not answered a lag refresh yet"


async def test_without_a_lag_view_the_service_is_ready() -> None:
    async with served(create_app(SETTINGS)) as client:
        response = await client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["lag_view"] == "off"
