"""``POST /assign`` in the topic-id form (the broker plugin's): resolution, answers, errors.

The member index is filled by hand here (the real one is filled by the lag
view's refreshes, tested against the real broker in tests/broker).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from lagassign.assign.answer import compute_answer
from lagassign.assign.lag_sources import request_lag_source
from lagassign.assign.request import parse_assign_request
from lagassign.http.app import create_app
from lagassign.settings import Settings
from tests.service.fake_lag_view import FakeLagView, snapshot_of
from tests.service.serving import served

pytestmark = pytest.mark.anyio

T0, T1 = "b9qb0e5ZQXmcN3DmxEsbQA", "Qt6_XhnXQLmtryQsRG34Zw"
LAGS = {"t0": [9_000, 10, 10, 10], "t1": [5_000, 4_000]}


def plugin_request(*member_ids: str, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "topic_ids": True,
        "members": [
            {
                "member_id": m,
                "group_instance_id": None,
                "rack": None,
                "topics": [T0, T1],
                "owned": {},
            }
            for m in member_ids
        ],
        "partitions": {T0: 4, T1: 2},
    }
    return {**body, **changes}


def view_with(groups: dict[str, list[str]]) -> FakeLagView:
    view = FakeLagView({g: snapshot_of(g, LAGS) for g in groups})
    view.consumer_index.rebuild(groups, {T0: "t0", T1: "t1"})
    return view


async def post(view: FakeLagView, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    app = create_app(Settings.from_environ({"LAGASSIGN_ON_DEMAND_BUDGET_MS": "500"}), lag_view=view)
    async with served(app) as client:
        response = await client.post("/assign", content=json.dumps(body))
    return response.status_code, response.json()


async def test_the_group_is_resolved_and_the_answer_is_the_named_one_keyed_by_topic_id() -> None:
    view = view_with({"orders": ["m-1", "m-2"], "audit": ["a-1"]})
    # m-3 joined since the last refresh: it follows the members the index knows.
    status, answer = await post(view, plugin_request("m-1", "m-2", "m-3"))
    assert status == 200, answer
    assert answer["group_id"] == "orders"
    assert answer["lag"]["source"] == "kafka"
    assert view.fetches == []  # cached state only, never an on-demand read
    named = parse_assign_request(
        json.dumps(
            {
                "group_id": "orders",
                "members": [
                    {"member_id": m, "topics": ["t0", "t1"]} for m in ("m-1", "m-2", "m-3")
                ],
                "partitions": {"t0": 4, "t1": 2},
                "lags": LAGS,
            }
        )
    )
    expected = compute_answer(named, request_lag_source(named), "balanced").to_json()
    by_id = {"t0": T0, "t1": T1}
    assert answer["assignment"] == {
        m: {by_id[t]: ps for t, ps in topics.items()}
        for m, topics in expected["assignment"].items()
    }
    assert answer["stats"]["max_lag"] == expected["stats"]["max_lag"]
    assert view.tracked == ["orders"]


async def test_owned_and_racks_are_read_by_topic_id() -> None:
    view = view_with({"orders": ["m-1", "m-2"]})
    body = plugin_request("m-1", "m-2")
    body["members"][0]["owned"] = {T0: [0, 1, 2, 3]}
    body["members"][1]["owned"] = {T1: [0, 1]}
    body["members"][0]["rack"] = "a"
    body["partition_racks"] = {T0: [["a"], ["b"], ["a"], ["b"]], T1: [["a"], ["b"]]}
    status, answer = await post(view, body)
    assert status == 200, answer
    given = sorted(
        (t, p) for topics in answer["assignment"].values() for t, ps in topics.items() for p in ps
    )
    assert given == sorted([(T0, p) for p in range(4)] + [(T1, p) for p in range(2)])


async def test_no_known_member_is_404_unknown_group() -> None:
    view = view_with({"orders": ["m-1"]})
    status, answer = await post(view, plugin_request("x-1", "x-2"))
    assert status == 404
    assert answer["error"]["code"] == "unknown_group"
    assert view.fetches == []


async def test_members_of_two_groups_are_409_ambiguous_group() -> None:
    view = view_with({"orders": ["m-1"], "audit": ["a-1"]})
    status, answer = await post(view, plugin_request("m-1", "a-1"))
    assert status == 409
    assert answer["error"]["code"] == "ambiguous_group"
    assert answer["error"]["details"] == {"groups": ["audit", "orders"]}


async def test_an_unknown_topic_id_is_404_unknown_topic() -> None:
    view = view_with({"orders": ["m-1"]})
    body = plugin_request("m-1", partitions={T0: 4, T1: 2, "AAAAAAAAAAAAAAAAAAAAAA": 1})
    status, answer = await post(view, body)
    assert status == 404
    assert answer["error"]["code"] == "unknown_topic"


async def test_a_request_without_group_id_and_topic_ids_is_400() -> None:
    view = view_with({"orders": ["m-1"]})
    body = plugin_request("m-1")
    body.pop("topic_ids")
    status, answer = await post(view, body)
    assert status == 400
    assert answer["error"]["message"].startswith("group_id:")


async def test_unresolved_requests_are_counted_by_reason_and_the_index_is_a_gauge() -> None:
    view = view_with({"orders": ["m-1", "m-2"]})
    app = create_app(Settings.from_environ({}), lag_view=view)
    async with served(app) as client:
        await client.post("/assign", content=json.dumps(plugin_request("x-1")))
        text = (await client.get("/metrics")).text
    assert 'lagassign_assign_failures_total{reason="unknown_group"} 1.0' in text
    assert "lagassign_consumer_group_members_indexed 2.0" in text
