"""One response contract: every body the service answers validates against its own OpenAPI.

``POST /assign`` writes its body by hand (``Answer.to_json`` and a fast encoder) while
``AssignResponse`` only feeds ``/openapi.json``; these tests tie the two. Each response is
checked, with ``jsonschema``, against the schema the running app serves for that route
and status (``#/components/schemas/...`` refs resolved in the same document), so a
field the encoder adds, drops or types differently fails here, and so does a status
the route answers but does not declare. The same holds for ``GET /groups``,
``GET /groups/{group_id}`` and its ``/advice``: every kind of group (classic, on the
consumer protocol, unknown to Kafka, cold with nothing committed, failing) on a fake
lag view, and on the real broker a cold sidecar reading live groups of both protocols.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from itertools import product
from pathlib import Path
from typing import Any, get_args
from urllib.parse import quote

import httpx
import jsonschema
import pytest
from fastapi import FastAPI

from harness.broker import LocalKafka
from harness.builders import commit, create_topic, members, produce
from harness.poll import eventually_async
from lagassign.assign.request_schema import AnswerForm
from lagassign.core.strategies import STRATEGIES
from lagassign.http.app import create_app
from lagassign.http.parts import sidecar_of
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.settings import Settings
from tests.broker.consumers import consumers, each_partition_once, poll_until
from tests.service.fake_lag_view import FakeLagView, snapshot_of
from tests.service.group_builders import snapshot_of as group_snapshot
from tests.service.serving import served
from tests.service.weights_file import one_group_weights

pytestmark = pytest.mark.anyio


JSON = {"content-type": "application/json"}


def body(**changes: Any) -> dict[str, Any]:
    """Three members over two topics; C0 and C1 own partitions, C2 joins new."""
    return {
        "group_id": "orders",
        "members": [
            {"member_id": "C0", "topics": ["t0", "t1"], "owned": {"t0": [0, 1, 2]}},
            {"member_id": "C1", "topics": ["t0"], "owned": {"t0": [3]}, "generation": 4},
            {"member_id": "C2", "topics": ["t0", "t1"], "rack": "r1"},
        ],
        "partitions": {"t0": 4, "t1": 2},
        "lags": {"t0": [900, 10, 10, 400], "t1": [5, 0]},
        **changes,
    }


ANSWER_FORMS = get_args(AnswerForm)


def without_lags(**changes: Any) -> dict[str, Any]:
    return {k: v for k, v in body(**changes).items() if k != "lags"}


def app_with(environ: dict[str, str] | None = None, lag_view: Any = None) -> FastAPI:
    return create_app(Settings.from_environ(environ or {}), lag_view=lag_view)


async def openapi(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.get("/openapi.json")
    assert response.status_code == 200
    spec: dict[str, Any] = response.json()
    return spec


def response_schema(spec: dict[str, Any], path: str, method: str, status: int) -> dict[str, Any]:
    """The JSON schema ``spec`` declares for this answer, its refs resolvable in place."""
    responses = spec["paths"][path][method]["responses"]
    assert str(status) in responses, f"{method.upper()} {path} answers {status} undeclared"
    content = responses[str(status)].get("content", {})
    assert "application/json" in content, f"{method.upper()} {path} {status}: no JSON schema"
    schema: dict[str, Any] = content["application/json"].get("schema", {})
    assert schema, f"{method.upper()} {path} {status} declares an empty schema"
    return {**schema, "components": spec["components"]}


def check(spec: dict[str, Any], path: str, method: str, response: httpx.Response) -> dict[str, Any]:
    """Assert the response is JSON and valid against its declared schema; return the body."""
    assert response.headers["content-type"].startswith("application/json")
    answer: dict[str, Any] = response.json()
    schema = response_schema(spec, path, method, response.status_code)
    jsonschema.Draft202012Validator(schema).validate(answer)
    return answer


async def test_every_strategy_protocol_and_form_answers_as_its_schema_says() -> None:
    async with served(app_with()) as client:
        spec = await openapi(client)
        revoked_any = False
        for strategy in STRATEGIES:
            for protocol, form in product(("eager", "cooperative"), ANSWER_FORMS):
                sent = body(strategy=strategy, protocol=protocol, answer_form=form)
                response = await client.post("/assign", json=sent)
                assert response.status_code == 200, response.text
                answer = check(spec, "/assign", "post", response)
                assert (answer["strategy"], answer["lag"]["source"]) == (strategy, "request")
                assert ("topics" in answer) == (form != "topics")
                revoked_any = revoked_any or bool(answer["revoked"])
    assert revoked_any  # some cooperative answer carried revocations through the schema


def fresh_weights(folder: Path, group_id: str, topics: dict[str, tuple[int | None, ...]]) -> Path:
    """A forecast weights file of one group's ``topics``, made 5 s ago (fresh)."""
    as_of = datetime.now(UTC) - timedelta(seconds=5)
    return one_group_weights(folder / "weights.json", group_id, topics, as_of=as_of)


async def test_answers_from_each_lag_source_answer_as_the_schema_says(tmp_path: Path) -> None:
    weights = fresh_weights(tmp_path, "forecast", {"t0": (5, None, 1, 2)})
    view = FakeLagView(
        {
            "orders": snapshot_of("orders", {"t0": [7, None, 3, 1]}, reset_policy="earliest"),
            "forecast": snapshot_of("forecast", {"t0": [1, 1, 1, 1], "t1": [2, 2]}),
        }
    )
    cases = {
        # source -> a request answered from it
        "kafka": without_lags(reset_policy="latest"),
        "forecast": without_lags(group_id="forecast"),
        "none": without_lags(group_id="never-seen"),
        "request": body(lags={"t0": [1, 2, 3, 4]}),  # t1's lag not given: incomplete
    }
    app = app_with({"LAGASSIGN_WEIGHTS_PATH": str(weights)}, lag_view=view)
    async with served(app) as client:
        spec = await openapi(client)
        for source, sent in cases.items():
            answer = check(spec, "/assign", "post", await client.post("/assign", json=sent))
            assert answer["lag"]["source"] == source
        assert answer["lag"]["complete"] is False
        answer = check(
            spec, "/assign", "post", await client.post("/assign", json=without_lags())
        )  # the group's own reset policy (earliest); t0[1] unknown, t1 not in the snapshot
        assert (answer["lag"]["source"], answer["lag"]["unknown_partitions"]) == ("kafka", 3)
        assert isinstance(answer["lag"]["age_seconds"], float)


async def test_an_answer_encoded_member_by_member_answers_as_the_schema_says() -> None:
    members = [{"member_id": f"m{i:03}", "topics": ["t"]} for i in range(150)]
    sent = {"group_id": "wide", "members": members, "partitions": {"t": 400}}
    async with served(app_with()) as client:
        spec = await openapi(client)
        answer = check(spec, "/assign", "post", await client.post("/assign", json=sent))
    assert len(answer["assignment"]) == 150


async def test_refusals_are_the_error_shape_the_schema_declares() -> None:
    limits = {"LAGASSIGN_MAX_BODY_BYTES": "4000", "LAGASSIGN_MAX_MEMBERS": "2"}
    two = body()["members"][:2]
    refusals: list[tuple[dict[str, Any], int, str]] = [
        ({"content": b"{not json", "headers": JSON}, 400, "invalid_json"),
        ({"json": {"group_id": "g", "members": []}}, 400, "invalid_request"),
        ({"json": body(members=two, strategy="nonesuch")}, 400, "invalid_request"),
        ({"json": body(members=two, lags={"t0": [1]})}, 400, "invalid_request"),
        ({"content": json.dumps(body(group_id="g" * 5000)), "headers": JSON}, 413, "too_large"),
        ({"json": body()}, 413, "too_large"),  # three members over the limit of two
        (
            {"content": json.dumps(body()), "headers": {"content-type": "text/plain"}},
            415,
            "unsupported_media_type",
        ),
        (
            {"content": b"a=1", "headers": {"content-type": "application/x-www-form-urlencoded"}},
            415,
            "unsupported_media_type",
        ),
        (
            {"content": json.dumps(body(members=two)), "headers": {"content-type": ""}},
            415,
            "unsupported_media_type",
        ),
    ]
    app = app_with(limits)
    async with served(app) as client:
        spec = await openapi(client)
        for request, status, code in refusals:
            response = await client.post("/assign", **request)
            assert response.status_code == status, response.text
            assert check(spec, "/assign", "post", response)["error"]["code"] == code
        # JSON declared with a charset is read as JSON
        small = json.dumps(body(members=two))
        headers = {"content-type": "application/json; charset=utf-8"}
        response = await client.post("/assign", content=small, headers=headers)
        assert response.status_code == 200, response.text
    registry = sidecar_of(app).metrics.registry
    counted = registry.get_sample_value(
        "lagassign_assign_failures_total", {"reason": "unsupported_media_type"}
    )
    assert counted == 3


async def test_the_token_and_the_groups_routes_refuse_in_the_declared_shape() -> None:
    async with served(app_with({"LAGASSIGN_TOKEN": "s3cret-token-0123456789"})) as client:
        spec = await openapi(client)
        for path, method, route in (
            ("/assign", "post", "/assign"),
            ("/groups", "get", "/groups"),
            ("/groups/orders", "get", "/groups/{group_id}"),
            ("/groups/orders/advice", "get", "/groups/{group_id}/advice"),
        ):
            response = await client.request(method, path, json=body())
            assert response.status_code == 401
            assert check(spec, route, method, response)["error"]["code"] == "unauthorized"
        good = {"authorization": "Bearer s3cret-token-0123456789"}
        response = await client.get("/groups/never-seen", headers=good)
        assert response.status_code == 404
        error = check(spec, "/groups/{group_id}", "get", response)["error"]
        assert (error["code"], error["details"]) == ("not_found", {"group_id": "never-seen"})


GROUP_ROUTE, ADVICE_ROUTE = "/groups/{group_id}", "/groups/{group_id}/advice"
BROWSER = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
NO_HOLD = {"LAGASSIGN_ADVICE_HOLD_S": "0", "LAGASSIGN_ADVICE_COOLDOWN_S": "0"}


def live(group_id: str, **changes: Any) -> GroupSnapshot:
    """Two live members on range's lopsided layout, read just now."""
    return group_snapshot(
        group_id,
        {"c-1": {"t0": [0, 1]}, "c-2": {"t0": [2, 3]}},
        {"t0": [900, 800, 10, 10]},
        as_of=datetime.now(UTC),
        **changes,
    )


async def check_group(
    client: httpx.AsyncClient, spec: dict[str, Any], group_id: str, status: int = 200
) -> dict[str, Any]:
    """``GET /groups/{group_id}`` as JSON, checked; and its page is HTML when it exists."""
    path = "/groups/" + quote(group_id, safe="")
    response = await client.get(path)
    assert response.status_code == status, response.text
    answer = check(spec, GROUP_ROUTE, "get", response)
    page = await client.get(path, headers=BROWSER)
    assert page.status_code == status
    if status == 200:
        assert page.headers["content-type"].startswith("text/html")
    return answer


async def check_advice(
    client: httpx.AsyncClient, spec: dict[str, Any], group_id: str, status: int = 200
) -> dict[str, Any]:
    response = await client.get("/groups/" + quote(group_id, safe="") + "/advice")
    assert response.status_code == status, response.text
    return check(spec, ADVICE_ROUTE, "get", response)


async def test_every_groups_answer_is_the_json_its_schema_declares(tmp_path: Path) -> None:
    # Fresh forecast weights for "orders" that range's live layout skews (18 against 2):
    # the advice weighs them, so the group is advised.
    weights = fresh_weights(tmp_path, "orders", {"t0": (9, 9, 1, 1)})
    view = FakeLagView(
        {
            "orders": live("orders"),
            "kip848": live("kip848", protocol_type="consumer"),
            # Nobody ever committed and nobody is in it: every lag unknown, no what-if.
            "cold": group_snapshot("cold", {}, {"t0": [None, None]}, state="Empty"),
            "failing": live("failing", error="GroupReadError: group 'failing': timed out"),
        }
    )
    app = app_with({"LAGASSIGN_WEIGHTS_PATH": str(weights), **NO_HOLD}, lag_view=view)
    async with served(app) as client:
        spec = await openapi(client)
        # The advice route answers before any refresh weighed the group, and after.
        early = await check_advice(client, spec, "orders")
        assert early["reason"] == "no refresh has weighed this group yet"
        tracker = sidecar_of(app).advice
        assert tracker is not None
        fresh = list(view.snapshots().values())
        await tracker.refreshed(Refresh(duration_s=0.01, ok=True, fresh=fresh))
        members = [{"member_id": m, "topics": ["t0"]} for m in ("c-1", "c-2")]
        sent = {"group_id": "orders", "members": members, "partitions": {"t0": 4}}
        answered = await client.post("/assign", json=sent)
        assert answered.status_code == 200, answered.text
        # A group Kafka does not know, listed only because the service answered for it.
        what_if = without_lags(group_id="what-if") | {"lags": {"t0": [1, 2, 3, 4], "t1": [0, 0]}}
        assert (await client.post("/assign", json=what_if)).status_code == 200

        orders = await check_group(client, spec, "orders")
        assert orders["advice"] is not None
        assert orders["advice"]["advised"] is True, orders["advice"]
        assert orders["last_answers"]
        assert orders["skew"]["default_strategy_now"] is not None
        assert orders["live_vs_last_answer"]["status"] in {"pending", "differs"}
        assert (await check_advice(client, spec, "orders"))["advised"] is True
        kip848 = await check_group(client, spec, "kip848")
        assert kip848["header"]["protocol_note"] is not None
        assert (await check_advice(client, spec, "kip848"))["advised"] is False
        cold = await check_group(client, spec, "cold")
        assert cold["header"]["unknown_partitions"] == 2
        assert cold["members"] == []
        assert cold["skew"]["default_strategy_now"] is None
        assert cold["skew"]["default_strategy_now_unavailable"] is not None
        failing = await check_group(client, spec, "failing")
        assert failing["freshness"]["stale"] is True
        unknown = await check_group(client, spec, "what-if")
        assert unknown["freshness"]["as_of"] is None
        assert unknown["last_answers"][0]["lag_source"] == "request"
        await check_advice(client, spec, "what-if", 404)
        await check_group(client, spec, "never-seen", 404)
        await check_advice(client, spec, "never-seen", 404)

        listing = check(spec, "/groups", "get", await client.get("/groups"))
        assert [g["group_id"] for g in listing["groups"]] == [
            "cold",
            "failing",
            "kip848",
            "orders",
            "what-if",
        ]
        assert listing["forecast_weights"]["file"] == "loaded"
        page = await client.get("/groups", headers=BROWSER)
        assert page.headers["content-type"].startswith("text/html")
    for path in ("/groups", GROUP_ROUTE):
        assert "text/html" in spec["paths"][path]["get"]["responses"]["200"]["content"]


async def test_groups_without_a_lag_view_answer_as_the_schema_says() -> None:
    async with served(app_with()) as client:
        spec = await openapi(client)
        listing = check(spec, "/groups", "get", await client.get("/groups"))
        assert listing == {
            "groups": [],
            "lag_view": {
                "running": False,
                "kafka_up": False,
                "first_snapshot_loaded": False,
                "last_refresh_ok": None,
                "last_refresh_error": None,
            },
            "forecast_weights": None,
            "history": None,
        }
        await check_advice(client, spec, "orders", 404)
        await check_group(client, spec, "orders", 404)


@pytest.mark.kafka
async def test_a_new_group_on_a_cold_sidecar_answers_as_the_schema_says(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    topic, group = kafka_names("t"), kafka_names("g")
    await create_topic(kafka_broker.bootstrap, topic, 3)
    await produce(kafka_broker.bootstrap, topic, [5, 0, 2])
    await commit(kafka_broker.bootstrap, group, {(topic, 0): 1})  # 1 and 2: no commit
    settings = Settings.from_environ(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": kafka_broker.bootstrap,
            "LAGASSIGN_KAFKA_TIMEOUT_MS": "5000",
            "LAGASSIGN_ON_DEMAND_BUDGET_MS": "10000",
        }
    )
    sent = {
        "group_id": group,
        "members": [{"member_id": "m0", "topics": [topic]}, {"member_id": "m1", "topics": [topic]}],
        "partitions": {topic: 3},
        "reset_policy": "earliest",  # the uncommitted partitions would start at the log start
    }
    async with served(create_app(settings, kafka=True)) as client:
        spec = await openapi(client)
        answer = check(spec, "/assign", "post", await client.post("/assign", json=sent))
    assert answer["lag"]["source"] == "kafka-drain"
    assert sum(answer["stats"]["member_lag"].values()) == 4 + 0 + 2


@pytest.mark.kafka
async def test_live_groups_on_a_cold_sidecar_answer_as_the_schema_says(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    """Two real groups, nothing committed, read by a sidecar started after them.

    ``classic``: two aiokafka members on the classic protocol; ``kip848``: a
    librdkafka member on the consumer protocol (the broker's uniform assignor).
    """
    bootstrap = kafka_broker.bootstrap
    topic, classic, kip848 = kafka_names("t"), kafka_names("classic"), kafka_names("kip848")
    await create_topic(bootstrap, topic, 3)
    await produce(bootstrap, topic, [5, 0, 2])
    settings = Settings.from_environ(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": bootstrap,
            "LAGASSIGN_GROUPS": f"{classic},{kip848}",
            "LAGASSIGN_REFRESH_INTERVAL_S": "0.5",
            "LAGASSIGN_KAFKA_TIMEOUT_MS": "5000",
        }
    )
    async with members(bootstrap, classic, [topic], 2, "contract"):
        with consumers(bootstrap, kip848, topic, 1, "uniform") as librdkafka:
            held = await asyncio.to_thread(
                poll_until, librdkafka, lambda s: each_partition_once(s, topic, 3), 60.0
            )
            assert each_partition_once(held, topic, 3)
            async with served(create_app(settings, kafka=True)) as client:
                spec = await openapi(client)

                async def described(group_id: str, count: int) -> dict[str, Any] | None:
                    """The group's answer once it shows ``count`` members (404 before a refresh)."""
                    response = await client.get("/groups/" + quote(group_id, safe=""))
                    answer = check(spec, GROUP_ROUTE, "get", response)
                    if response.status_code == 404 or answer["header"]["members"] != count:
                        return None
                    return answer

                cold = await eventually_async(
                    lambda: described(classic, 2), 60.0, f"the sidecar sees {classic}'s members"
                )
                kip = await eventually_async(
                    lambda: described(kip848, 1), 60.0, f"the sidecar sees {kip848}'s member"
                )
                for group_id in (classic, kip848):
                    await check_group(client, spec, group_id)  # and its page is HTML
                    await check_advice(client, spec, group_id)
                listing = check(spec, "/groups", "get", await client.get("/groups"))
    assert cold["header"]["protocol_type"] == "classic"
    assert [p["current_offset"] for p in cold["partitions"]] == [None, None, None]
    assert kip["header"]["protocol_type"] == "consumer"
    assert kip["header"]["protocol_note"] is not None
    assert {classic, kip848} <= {g["group_id"] for g in listing["groups"]}
    assert listing["lag_view"]["running"] is True
