"""``POST /assign`` says how long each of its steps took (``Server-Timing``)."""

from __future__ import annotations

import json
import re

import pytest

from lagassign.http.app import create_app
from lagassign.http.heavy import LIGHT_COST
from lagassign.settings import Settings
from tests import test_cli
from tests.service.serving import served

pytestmark = pytest.mark.anyio

STEP = re.compile(r"^([a-z]+);dur=(\d+\.\d{2})$")


def steps(header: str) -> dict[str, float]:
    """The header's steps in their order, each in milliseconds (each named once)."""
    found: dict[str, float] = {}
    for part in header.split(", "):
        matched = STEP.match(part)
        assert matched is not None, header
        assert matched.group(1) not in found, header
        found[matched.group(1)] = float(matched.group(2))
    return found


async def test_a_light_request_times_its_read_parse_and_answer_within_its_total() -> None:
    async with served(create_app(Settings.from_environ({}))) as client:
        response = await client.post("/assign", content=json.dumps(test_cli.KIP_REQUEST))
    assert response.status_code == 200
    timed = steps(response.headers["server-timing"])
    assert list(timed) == ["read", "parse", "answer", "total"]
    # The steps run one after another within the route, so they fit in its total.
    assert sum(ms for step, ms in timed.items() if step != "total") <= timed["total"] + 0.05


async def test_a_heavy_request_also_times_its_wait_for_a_turn() -> None:
    members = [{"member_id": f"m{i}", "topics": ["big"]} for i in range(4)]
    heavy = {"group_id": "g", "members": members, "partitions": {"big": LIGHT_COST + 1}}
    async with served(create_app(Settings.from_environ({}))) as client:
        response = await client.post("/assign", json=heavy)
    assert response.status_code == 200, response.text
    timed = steps(response.headers["server-timing"])
    assert list(timed) == ["read", "parse", "turn", "answer", "total"]
    assert sum(ms for step, ms in timed.items() if step != "total") <= timed["total"] + 0.05


async def test_a_refused_request_has_no_timing() -> None:
    async with served(create_app(Settings.from_environ({}))) as client:
        response = await client.post(
            "/assign", content=b"{", headers={"content-type": "application/json"}
        )
    assert response.status_code == 400
    assert "server-timing" not in response.headers
