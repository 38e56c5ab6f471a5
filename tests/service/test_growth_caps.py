"""What grows with input is capped: metric series per group, the answer log, and their expiry."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI

from harness.poll import eventually_async
from lagassign.http.app import create_app
from lagassign.http.parts import sidecar_of
from lagassign.settings import Settings
from tests.hostile import request
from tests.service.fake_lag_view import FakeLagView
from tests.service.serving import served

pytestmark = pytest.mark.anyio


def app_with(environ: dict[str, str], lag_view: FakeLagView | None = None) -> FastAPI:
    return create_app(Settings.from_environ(environ), lag_view=lag_view)


def groups_in(metrics: str, name: str) -> set[str]:
    return set(re.findall(rf'^{name}{{[^}}]*group="([^"]*)"', metrics, flags=re.M))


async def test_metric_series_and_answers_of_at_most_max_tracked_groups() -> None:
    app = app_with({"LAGASSIGN_MAX_TRACKED_GROUPS": "50"})
    async with served(app) as client:
        for i in range(400):
            response = await client.post("/assign", json=request(group_id=f"g{i}"))
            assert response.status_code == 200
        text = (await client.get("/metrics")).text
        answers = sidecar_of(app).answers
    expected = {f"g{i}" for i in range(350, 400)}
    for name in (
        "lagassign_assign_requests_total",
        "lagassign_assignment_imbalance_ratio",
        "lagassign_assignment_moved_partitions_total",
    ):
        assert groups_in(text, name) == expected, name
    assert set(answers.groups()) == expected


async def test_series_of_an_idle_group_are_removed_at_the_next_scrape() -> None:
    app = app_with({"LAGASSIGN_TRACKED_GROUP_IDLE_S": "0.5"})
    async with served(app) as client:
        await client.post("/assign", json=request(group_id="gone", strategy="range"))
        await client.post("/assign", json=request(group_id="gone", strategy="balanced"))
        assert groups_in(
            (await client.get("/metrics")).text, "lagassign_assign_requests_total"
        ) == {"gone"}

        async def gone_at_a_scrape() -> bool:
            return 'group="gone"' not in (await client.get("/metrics")).text

        # Past the idle time (0.5 s), a scrape removes them: polled, not slept for.
        await eventually_async(gone_at_a_scrape, 30, "the idle group's series removed")


async def test_the_answer_log_is_capped_in_bytes() -> None:
    app = app_with({"LAGASSIGN_ANSWER_LOG_MAX_BYTES": "1000000"})
    members = [{"member_id": f"{i}-" + "m" * 30_000, "topics": ["t0"]} for i in range(20)]
    async with served(app) as client:
        for i in range(20):
            body = request(group_id=f"g{i % 3}", members=members)
            assert (await client.post("/assign", json=body)).status_code == 200
        answers = sidecar_of(app).answers
    assert 0 < answers.bytes <= 1_000_000
    assert answers.last("g1") is not None  # the newest answers stay


async def test_the_eviction_counter_is_exported() -> None:
    view = FakeLagView()
    view.tracked_groups_evicted_total = 7
    async with served(app_with({}, view)) as client:
        text = (await client.get("/metrics")).text
    assert "lagassign_tracked_groups_evicted_total 7.0" in text
