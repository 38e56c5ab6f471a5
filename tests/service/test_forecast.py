"""Forecast weights through the service: ``lag.source = forecast`` when configured and fresh."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from lagassign.http.app import create_app
from lagassign.http.parts import sidecar_of
from lagassign.settings import Settings
from tests.service.fake_lag_view import FakeLagView, snapshot_of
from tests.service.serving import forecast_of, served
from tests.service.weights_file import one_group_weights

pytestmark = pytest.mark.anyio

BODY: dict[str, Any] = {
    "group_id": "orders",
    "members": [{"member_id": "C0", "topics": ["t0"]}, {"member_id": "C1", "topics": ["t0"]}],
    "partitions": {"t0": 4},
}
FORECAST = (500, 20, None, 480)
KAFKA_LAGS = [1, 1, 1, 1]


def weights_file(path: Path, *, age_s: float = 60, group: str = "orders") -> None:
    one_group_weights(
        path, group, {"t0": FORECAST}, as_of=datetime.now(UTC) - timedelta(seconds=age_s)
    )


def app_with(path: Path, **environ: str) -> Any:
    settings = Settings.from_environ(
        {"LAGASSIGN_WEIGHTS_PATH": str(path), "LAGASSIGN_REFRESH_INTERVAL_S": "0.1", **environ}
    )
    view = FakeLagView({"orders": snapshot_of("orders", {"t0": KAFKA_LAGS})})
    return create_app(settings, lag_view=view)


def member_lags(answer: dict[str, Any], lags: list[int]) -> dict[str, int]:
    return {m: sum(lags[p] for p in t.get("t0", [])) for m, t in answer["assignment"].items()}


async def test_fresh_weights_answer_with_the_forecast(tmp_path: Path) -> None:
    path = tmp_path / "weights.json"
    weights_file(path)
    async with served(app_with(path, LAGASSIGN_WEIGHTS_MAX_AGE_S="600")) as client:
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
    async with served(app_with(path, LAGASSIGN_WEIGHTS_MAX_AGE_S="600")) as client:
        answer = (await client.post("/assign", json=BODY)).json()
    assert answer["lag"]["source"] == "kafka"
    assert answer["stats"]["member_lag"] == member_lags(answer, KAFKA_LAGS)


async def test_a_new_weights_file_is_picked_up_while_serving(tmp_path: Path) -> None:
    path = tmp_path / "weights.json"
    app = app_with(path, LAGASSIGN_WEIGHTS_MAX_AGE_S="600")
    async with served(app) as client:
        before = (await client.post("/assign", json=BODY)).json()
        weights_file(path)
        deadline = time.monotonic() + 30
        while forecast_of(app).weights is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        after = (await client.post("/assign", json=BODY)).json()
    assert before["lag"]["source"] == "kafka"
    assert after["lag"]["source"] == "forecast"


def metric(app: Any, name: str) -> float | None:
    found: float | None = sidecar_of(app).metrics.registry.get_sample_value(name, {})
    return found


async def weights_state(client: Any) -> dict[str, Any]:
    body = (await client.get("/groups", headers={"accept": "application/json"})).json()
    state: dict[str, Any] = body["forecast_weights"]
    return state


async def assign_and_show(
    app: Any, caplog: pytest.LogCaptureFixture
) -> tuple[dict[str, Any], dict[str, Any], str]:
    """One ``POST /assign``, the weights' state and the ``/groups`` page, logs captured."""
    with caplog.at_level("INFO", logger="lagassign.forecast_source"):
        async with served(app) as client:
            answer = (await client.post("/assign", json=BODY)).json()
            state = await weights_state(client)
            page = (await client.get("/groups", headers={"accept": "text/html"})).text
    return answer, state, page


async def until(check: Any, what: str) -> None:
    deadline = time.monotonic() + 30
    while not await check():
        assert time.monotonic() < deadline, f"not within 30 s: {what}"
        await asyncio.sleep(0.05)


async def test_stale_weights_are_measured_against_the_horizon_and_shown(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "weights.json"
    weights_file(path, age_s=400)  # horizon 300 s: the forecast is about the past
    app = app_with(path)
    answer, state, page = await assign_and_show(app, caplog)
    assert answer["lag"]["source"] == "kafka"
    assert state["file"] == "loaded"
    assert state["stale"] is True
    assert state["in_use"] is False
    assert (state["groups"], state["fresh_groups"]) == (1, 0)
    assert state["max_age_seconds"] == 300
    assert state["age_seconds"] >= 400
    assert metric(app, "lagassign_forecast_weights_fresh_groups") == 0
    assert metric(app, "lagassign_forecast_weights_groups") == 1
    assert metric(app, "lagassign_forecast_weights_in_use") == 0
    assert metric(app, "lagassign_forecast_weights_loaded") == 1
    age = metric(app, "lagassign_forecast_weights_age_seconds")
    assert age is not None
    assert age >= 400
    assert "0 of 1 group(s) fresh" in page
    assert "not in use" in page
    stale_lines = [m for m in caplog.messages if "are stale" in m]
    assert len(stale_lines) == 1
    assert "over the maximum age of 300 s" in stale_lines[0]


async def test_a_corrupt_file_falls_back_to_kafka_after_the_grace(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "weights.json"
    weights_file(path)
    app = app_with(path, LAGASSIGN_WEIGHTS_ERROR_GRACE_S="1.5")
    with caplog.at_level("INFO", logger="lagassign.forecast_source"):
        async with served(app) as client:
            before = (await client.post("/assign", json=BODY)).json()
            path.write_text('{"format": "lagassign-forecast-weights", "version": 1, "groups": [')

            async def unusable() -> bool:
                return bool((await weights_state(client))["file"] == "invalid")

            await until(unusable, "the corrupt file is noticed")
            during = (await client.post("/assign", json=BODY)).json()
            in_grace = await weights_state(client)
            in_grace_metric = metric(app, "lagassign_forecast_weights_in_use")

            async def dropped() -> bool:
                return bool((await weights_state(client))["in_use"] is False)

            await until(dropped, "the grace runs out")
            after = (await client.post("/assign", json=BODY)).json()
            state = await weights_state(client)

            async def logged() -> bool:
                return any("still unusable after 1.5 s" in m for m in caplog.messages)

            await until(logged, "the drop is logged at the next check")
    assert before["lag"]["source"] == "forecast"
    # Within the grace the last good copy answers; the state says why it is old.
    assert during["lag"]["source"] == "forecast"
    assert in_grace["in_use"] is True
    assert in_grace_metric == 1
    assert "is not JSON" in in_grace["last_error"]
    assert in_grace["error_since"] is not None
    # After it, the lag view answers: no old forecast forever.
    assert after["lag"]["source"] == "kafka"
    assert state["file"] == "invalid"
    assert state["error_grace_seconds"] == 1.5
    assert metric(app, "lagassign_forecast_weights_load_error") == 1
    assert metric(app, "lagassign_forecast_weights_load_errors_total") == 1
    assert metric(app, "lagassign_forecast_weights_in_use") == 0
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("unusable" in m and "stays in use for 1.5 s" in m for m in warnings)
    assert any("still unusable after 1.5 s" in m for m in warnings)


async def test_a_missing_file_is_shown_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "mistyped.json"
    app = app_with(path)
    answer, state, page = await assign_and_show(app, caplog)
    assert answer["lag"]["source"] == "kafka"
    assert state["file"] == "missing"
    assert state["in_use"] is False
    assert state["path"] == str(path)
    assert metric(app, "lagassign_forecast_weights_loaded") == 0
    assert metric(app, "lagassign_forecast_weights_load_error") == 0
    assert metric(app, "lagassign_forecast_weights_in_use") == 0
    assert metric(app, "lagassign_forecast_weights_age_seconds") is None
    assert f"{path} not found" in page
    assert sum(f"{path} not found" in m for m in caplog.messages) == 1


async def test_without_a_weights_path_groups_says_none() -> None:
    app = create_app(Settings.from_environ({}))
    async with served(app) as client:
        assert (await weights_state(client)) is None
    assert metric(app, "lagassign_forecast_weights_loaded") is None
