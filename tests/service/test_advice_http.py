"""``GET /groups/{id}/advice``, ``advice`` in ``GET /groups/{id}``, the page line, the metrics,
and the ``LAGASSIGN_ADVICE_*`` settings, through the app.

The lag view is a fake holding given snapshots; the advice tracker is fed a refresh
of them directly (what the real refresh loop does after each refresh).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

import pytest
from fastapi import FastAPI

from lagassign.groups.advice_tracker import AdviceTracker
from lagassign.http.app import create_app
from lagassign.http.parts import sidecar_of
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.settings import Settings, SettingsError
from tests.service.fake_lag_view import FakeLagView
from tests.service.group_builders import snapshot_of
from tests.service.serving import served

pytestmark = pytest.mark.anyio

NO_HOLD = {"LAGASSIGN_ADVICE_HOLD_S": "0", "LAGASSIGN_ADVICE_COOLDOWN_S": "0"}


def skewed(group_id: str = "orders") -> GroupSnapshot:
    return snapshot_of(
        group_id,
        {"c-1": {"t0": [0, 1]}, "c-2": {"t0": [2, 3]}},
        {"t0": [900, 800, 10, 10]},
        as_of=datetime.now(UTC),
    )


def app_for(view: FakeLagView, environ: Mapping[str, str]) -> FastAPI:
    return create_app(Settings.from_environ(environ), lag_view=view)


def tracker_of(app: FastAPI) -> AdviceTracker:
    tracker = sidecar_of(app).advice
    assert tracker is not None
    return tracker


async def refreshed(app: FastAPI, view: FakeLagView) -> None:
    fresh = list(view.snapshots().values())
    await tracker_of(app).refreshed(Refresh(duration_s=0.01, ok=True, fresh=fresh))


async def test_advice_route_json_page_and_metrics() -> None:
    view = FakeLagView({"orders": skewed()})
    app = app_for(view, NO_HOLD)
    async with served(app) as client:
        before = await client.get("/groups/orders/advice")
        assert before.status_code == 200
        assert before.json()["advised"] is False
        assert before.json()["reason"] == "no refresh has weighed this group yet"

        await refreshed(app, view)
        advice = (await client.get("/groups/orders/advice")).json()
        assert advice["advised"] is True
        assert advice["worst_lag_now"] == 1700
        assert advice["worst_lag_after"] == 910
        assert advice["partitions_to_move"] == 2

        group = (await client.get("/groups/orders")).json()
        assert group["advice"] == advice
        page = await client.get("/groups/orders", headers={"accept": "text/html"})
        assert 'id="advice"' in page.text
        assert "Rebalance advised" in page.text

        metrics = (await client.get("/metrics")).text
        assert 'lagassign_rebalance_advised{group="orders"} 1.0' in metrics
        assert 'lagassign_advised_rebalances_total{group="orders"} 0.0' in metrics

        # The group rebalances to an even layout: the advice is off, the counter counts it.
        view.cached["orders"] = snapshot_of(
            "orders",
            {"c-1": {"t0": [0, 2]}, "c-2": {"t0": [1, 3]}},
            {"t0": [900, 800, 10, 10]},
            as_of=datetime.now(UTC),
        )
        await refreshed(app, view)
        after = (await client.get("/groups/orders/advice")).json()
        assert after["advised"] is False
        metrics = (await client.get("/metrics")).text
        assert 'lagassign_rebalance_advised{group="orders"} 0.0' in metrics
        assert 'lagassign_advised_rebalances_total{group="orders"} 1.0' in metrics


async def test_kafka_down_is_never_advised() -> None:
    view = FakeLagView({"orders": skewed()})
    view.kafka_up = False
    app = app_for(view, NO_HOLD)
    async with served(app) as client:
        await refreshed(app, view)
        advice = (await client.get("/groups/orders/advice")).json()
        assert advice["advised"] is False
        assert "Kafka is unreachable" in advice["reason"]


async def test_unknown_group_is_404_with_the_error_shape() -> None:
    app = app_for(FakeLagView({"orders": skewed()}), {})
    async with served(app) as client:
        response = await client.get("/groups/nope/advice")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"


async def test_a_group_id_with_slashes_reaches_its_advice() -> None:
    view = FakeLagView({"team/orders": skewed("team/orders")})
    app = app_for(view, NO_HOLD)
    async with served(app) as client:
        await refreshed(app, view)
        response = await client.get("/groups/team%2Forders/advice")
        assert response.status_code == 200
        assert response.json()["group_id"] == "team/orders"
        # The group's own page is not taken for an advice request.
        assert (await client.get("/groups/team%2Forders")).json()["group_id"] == "team/orders"


def test_settings_defaults_and_validation() -> None:
    settings = Settings.from_environ({})
    assert settings.advice_min_gain == 0.3
    # unset: in proportion to the projected catch-up (300 s / 600 s without a capacity)
    assert settings.advice_hold_s is None
    assert settings.advice_cooldown_s is None
    assert settings.advice_rebalance_cost_s == 1
    for name, value in [
        ("LAGASSIGN_ADVICE_MIN_GAIN", "0"),
        ("LAGASSIGN_ADVICE_MIN_GAIN", "1.5"),
        ("LAGASSIGN_ADVICE_HOLD_S", "-1"),
        ("LAGASSIGN_ADVICE_COOLDOWN_S", "soon"),
        ("LAGASSIGN_ADVICE_REBALANCE_COST_S", "-2"),
    ]:
        with pytest.raises(SettingsError) as refused:
            Settings.from_environ({name: value})
        assert name.removeprefix("LAGASSIGN_").lower() in str(refused.value).lower()
