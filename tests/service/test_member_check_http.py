"""``POST /assign`` with another group's members: 400 wrong_group, counted; no check without
knowledge (a new group, a sidecar that just started)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from lagassign.http.app import create_app
from lagassign.http.parts import sidecar_of
from lagassign.lagview.snapshot import MemberDescription
from lagassign.settings import Settings
from tests.service.fake_lag_view import FakeLagView, snapshot_of
from tests.service.serving import served

pytestmark = pytest.mark.anyio

REQUEST: dict[str, Any] = {
    "group_id": "order",
    "members": [{"member_id": "C0", "topics": ["t0"]}, {"member_id": "C-new", "topics": ["t0"]}],
    "partitions": {"t0": 2},
}


def orders_with_member(member_id: str) -> FakeLagView:
    orders = snapshot_of("orders", {"t0": [10, 20]})
    member = MemberDescription(member_id, None, "client", "/10.0.0.1", {"t0": (0, 1)})
    return FakeLagView({"orders": replace(orders, members=(member,))})


async def test_members_of_another_group_are_refused_and_counted() -> None:
    app = create_app(Settings.from_environ({}), lag_view=orders_with_member("C0"))
    async with served(app) as client:
        response = await client.post("/assign", content=json.dumps(REQUEST))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "wrong_group"
    assert error["message"].startswith("the members belong to group 'orders', not 'order'")
    assert error["details"]["member_groups"] == {"orders": ["C0"]}
    registry = sidecar_of(app).metrics.registry
    assert registry.get_sample_value(
        "lagassign_assign_failures_total", {"reason": "wrong_group"}
    ) == pytest.approx(1.0)
    assert sidecar_of(app).answers.last("order") is None


async def test_members_nobody_knows_are_answered() -> None:
    # A new group's first rebalance, or a sidecar whose view has described nothing yet.
    for view in (orders_with_member("someone-else"), FakeLagView()):
        app = create_app(Settings.from_environ({}), lag_view=view)
        async with served(app) as client:
            response = await client.post("/assign", content=json.dumps(REQUEST))
        assert response.status_code == 200, response.text
