"""Forecast weights through the service: ``lag.source = forecast`` when configured and fresh."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from lagassign.forecast.weights import ForecastWeights, GroupForecast, write_forecast_weights
from lagassign.http.app import create_app
from lagassign.settings import Settings
from tests.service.fake_lag_view import FakeLagView, snapshot_of
from tests.service.serving import forecast_of, served

pytestmark = pytest.mark.anyio

BODY: dict[str, Any] = {
    "group_id": "orders",
    "members": [{"member_id": "C0", "topics": ["t0"]}, {"member_id": "C1", "topics": ["t0"]}],
    "partitions": {"t0": 4},
}
FORECAST = (500, 20, None, 480)
KAFKA_LAGS = [1, 1, 1, 1]


def weights_file(path: Path, *, age_s: float = 60, group: str = "orders") -> None:
    as_of = datetime.now(UTC) - timedelta(seconds=age_s)
    write_forecast_weights(
        path,
        ForecastWeights(
            generated_at=as_of,
            horizon_seconds=300,
            window_seconds=900,
            groups=(GroupForecast("default", group, as_of, {"t0": FORECAST}),),
        ),
    )


def app_for(path: Path) -> Any:
    settings = Settings.from_environ(
        {
            "LAGASSIGN_WEIGHTS_PATH": str(path),
            "LAGASSIGN_WEIGHTS_MAX_AGE_S": "600",
            "LAGASSIGN_REFRESH_INTERVAL_S": "0.1",
        }
    )
    view = FakeLagView({"orders": snapshot_of("orders", {"t0": KAFKA_LAGS})})
    return create_app(settings, lag_view=view)


def member_lags(answer: dict[str, Any], lags: list[int]) -> dict[str, int]:
    return {m: sum(lags[p] for p in t.get("t0", [])) for m, t in answer["assignment"].items()}


async def test_fresh_weights_answer_with_the_forecast(tmp_path: Path) -> None:
    path = tmp_path / "weights.json"
    weights_file(path)
    async with served(app_for(path)) as client:
        answer = (await client.post("/assign", json=BODY)).json()
        explicit = (
            await client.post("/assign", json={**BODY, "lags": {"t0": [0, 0, 0, 9]}})
        ).json()
    assert answer["lag"]["source"] == "forecast"
    assert answer["lag"]["unknown_partitions"] == 1
    assert answer["lag"]["complete"] is False
    assert answer["lag"]["age_seconds"] >= 60
    assert answer["stats"]["member_lag"] == member_lags(answer, [500, 20, 0, 480])
    assert max(answer["stats"]["member_lag"].values()) == 500
    assert explicit["lag"]["source"] == "request"


@pytest.mark.parametrize(
    "write",
    [
        lambda path: weights_file(path, age_s=3_600),
        lambda path: weights_file(path, group="another-group"),
        lambda path: path.write_text('{"format": "something else"}'),
        lambda path: None,
    ],
    ids=["stale", "other-group", "broken", "missing"],
)
async def test_without_usable_weights_the_lag_view_answers(tmp_path: Path, write: Any) -> None:
    path = tmp_path / "weights.json"
    write(path)
    async with served(app_for(path)) as client:
        answer = (await client.post("/assign", json=BODY)).json()
    assert answer["lag"]["source"] == "kafka"
    assert answer["stats"]["member_lag"] == member_lags(answer, KAFKA_LAGS)


async def test_a_new_weights_file_is_picked_up_while_serving(tmp_path: Path) -> None:
    path = tmp_path / "weights.json"
    app = app_for(path)
    async with served(app) as client:
        before = (await client.post("/assign", json=BODY)).json()
        weights_file(path)
        deadline = time.monotonic() + 30
        while forecast_of(app).weights is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        after = (await client.post("/assign", json=BODY)).json()
    assert before["lag"]["source"] == "kafka"
    assert after["lag"]["source"] == "forecast"
