"""``GET /groups`` and ``GET /groups/{group_id}`` through the app: JSON, HTML, errors, tokens."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from fastapi import FastAPI

from lagassign.http.app import create_app
from lagassign.http.groups import prefers_html
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.settings import Settings
from tests.service.fake_lag_view import FakeLagView
from tests.service.group_builders import snapshot_of
from tests.service.page_reader import GroupsPage
from tests.service.serving import served

TOKEN = "s3cret-token-0123456789"
SASL_PASSWORD = "sasl-password-never-shown"
BROWSER_ACCEPT = (
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
)
HTML = {"accept": BROWSER_ACCEPT}

pytestmark = pytest.mark.anyio


def skewed(group_id: str = "orders", **kwargs: Any) -> GroupSnapshot:
    return snapshot_of(
        group_id,
        {"c-1": {"t0": [0, 1]}, "c-2": {"t0": [2, 3]}},
        {"t0": [1000, 1000, 10, 10]},
        as_of=datetime.now(UTC),
        **kwargs,
    )


@pytest.fixture
def view() -> FakeLagView:
    return FakeLagView({"orders": skewed()})


def app_for(view: FakeLagView | None, environ: Mapping[str, str] | None = None) -> FastAPI:
    return create_app(Settings.from_environ(environ or {}), lag_view=view)


@pytest.fixture
async def client(view: FakeLagView) -> AsyncIterator[httpx.AsyncClient]:
    async with served(app_for(view)) as c:
        yield c


async def test_the_list_is_json_by_default(client: httpx.AsyncClient) -> None:
    response = await client.get("/groups")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.headers["vary"] == "Accept"
    body = response.json()
    (orders,) = body["groups"]
    assert orders["group_id"] == "orders"
    assert orders["header"]["members"] == 2
    assert orders["header"]["total_lag"] == 2020
    assert orders["freshness"]["stale"] is False
    assert orders["imbalance"] == pytest.approx(2000 / 1010, abs=1e-4)
    assert body["lag_view"]["running"] is True
    assert body["lag_view"]["kafka_up"] is True


async def test_one_group_as_json(client: httpx.AsyncClient) -> None:
    body = (await client.get("/groups/orders", headers={"accept": "*/*"})).json()
    assert body["group_id"] == "orders"
    assert body["header"]["state"] == "Stable"
    assert body["header"]["protocol_note"] is None
    assert [m["lag"] for m in body["members"]] == [2000, 20]
    assert [r["partition"] for r in body["partitions"]] == [0, 1, 2, 3]
    assert body["skew"]["default_strategy"] == "balanced"
    assert body["skew"]["default_strategy_now"]["max_lag"] == 1010
    assert body["skew"]["hot_partitions"][0]["lag"] == 1000
    assert body["last_answers"] == []
    assert body["live_vs_last_answer"]["status"] == "unknown"


async def test_an_unknown_group_is_404_with_the_error_json(client: httpx.AsyncClient) -> None:
    response = await client.get("/groups/nobody")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert "nobody" in response.json()["error"]["message"]
    assert (await client.get("/groups/nobody", headers=HTML)).status_code == 404


async def test_group_ids_with_slashes_and_spaces(view: FakeLagView) -> None:
    view.cached["team a/orders"] = skewed("team a/orders")
    async with served(app_for(view)) as c:
        body = (await c.get("/groups/team%20a%2Forders")).json()
        assert body["group_id"] == "team a/orders"
        page = (await c.get("/groups", headers=HTML)).text
        assert 'href="/groups/team%20a%2Forders"' in page


async def test_an_answer_makes_a_group_listed_and_its_match_follows_the_view(
    view: FakeLagView,
) -> None:
    request = {
        "group_id": "orders",
        "members": [
            {"member_id": "c-1", "topics": ["t0"], "owned": {"t0": [0, 1]}},
            {"member_id": "c-2", "topics": ["t0"], "owned": {"t0": [2, 3]}},
        ],
        "partitions": {"t0": 4},
    }
    async with served(app_for(view)) as c:
        answer = (await c.post("/assign", json=request)).json()
        assert answer["lag"]["source"] == "kafka"
        body = (await c.get("/groups/orders")).json()
        (last,) = body["last_answers"]
        assert last["strategy"] == "balanced"
        assert last["moved"] == answer["stats"]["moved"]
        # The view has not refreshed since the answer.
        assert body["live_vs_last_answer"]["status"] == "pending"

        # The next refresh sees the group as the answer left it ...
        view.cached["orders"] = snapshot_of(
            "orders", answer["assignment"], {"t0": [1000, 1000, 10, 10]}, as_of=datetime.now(UTC)
        )
        assert (await c.get("/groups/orders")).json()["live_vs_last_answer"]["status"] == "matches"

        # ... or the consumers fell back to their own assignor.
        view.cached["orders"] = skewed()
        match = (await c.get("/groups/orders")).json()["live_vs_last_answer"]
        assert match["status"] == "differs"
        assert match["differing_partitions"] == 2

        listed = (await c.get("/groups")).json()["groups"][0]
        assert listed["last_answer"]["strategy"] == "balanced"
        assert listed["live_vs_last_answer"]["status"] == "differs"


async def test_answers_alone_list_a_group_without_a_lag_view() -> None:
    request = {
        "group_id": "what-if",
        "members": [{"member_id": "a", "topics": ["t"]}, {"member_id": "b", "topics": ["t"]}],
        "partitions": {"t": 3},
        "lags": {"t": [9, 1, 1]},
    }
    async with served(app_for(None)) as c:
        assert (await c.post("/assign", json=request)).status_code == 200
        body = (await c.get("/groups")).json()
        assert [g["group_id"] for g in body["groups"]] == ["what-if"]
        assert body["lag_view"]["running"] is False
        group = (await c.get("/groups/what-if")).json()
        assert group["freshness"]["as_of"] is None
        assert group["last_answers"][0]["lag_source"] == "request"
        page = (await c.get("/groups", headers=HTML)).text
        assert "The lag view is not running" in page


async def test_the_browser_gets_html(client: httpx.AsyncClient) -> None:
    response = await client.get("/groups/orders", headers=HTML)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    page = GroupsPage(response.text)
    assert len(page.rows_of("partition")) == 4
    assert [b["data-member"] for b in page.bars("live")] == ["c-1", "c-2"]
    widths = [float(b["data-width"]) for b in page.bars("live")]
    assert widths == [100.0, 1.0]  # 2000 and 20, against the largest bar
    assert [int(b["data-lag"]) for b in page.bars("balanced")] == [1010, 1010]
    assert "<script" not in response.text


async def test_the_html_list_links_every_group(view: FakeLagView) -> None:
    view.cached["payments"] = skewed("payments")
    async with served(app_for(view)) as c:
        page = (await c.get("/groups", headers=HTML)).text
    assert len(GroupsPage(page).rows_of("group")) == 2
    assert 'href="/groups/orders"' in page
    assert 'href="/groups/payments"' in page


async def test_consumer_protocol_groups_show_their_assignor_and_how_to_opt_in(
    view: FakeLagView,
) -> None:
    view.cached["kip848"] = skewed("kip848", protocol_type="consumer")
    async with served(app_for(view)) as c:
        page = (await c.get("/groups/kip848", headers=HTML)).text
        body = (await c.get("/groups/kip848")).json()
        classic = (await c.get("/groups/orders", headers=HTML)).text
    assert 'id="protocol-note"' in page
    assert "group.remote.assignor=lagassign" in page
    assert "do not apply" not in page
    assert "group.remote.assignor=lagassign" in body["header"]["protocol_note"]
    # "balanced now" is computed for it as for a classic group.
    assert body["skew"]["default_strategy_now"]["max_lag"] == 1010
    assert 'id="protocol-note"' not in classic


async def test_a_kafka_outage_shows_on_every_group_but_one_groups_failure_only_on_it(
    view: FakeLagView,
) -> None:
    view.cached["payments"] = skewed(
        "payments", error="GroupReadError: group 'payments': timed out"
    )
    view.last_refresh_error = "GroupReadError: group 'payments': timed out"
    async with served(app_for(view)) as c:
        orders = (await c.get("/groups/orders")).json()["freshness"]
        payments = (await c.get("/groups/payments")).json()["freshness"]
        assert (orders["last_refresh_error"], orders["stale"]) == (None, False)
        assert payments["last_refresh_error"] == view.last_refresh_error
        assert payments["stale"] is True

        view.kafka_up = False
        view.last_refresh_error = "KafkaConnectionError: Unable to bootstrap from 127.0.0.1:9"
        orders = (await c.get("/groups/orders")).json()["freshness"]
        assert orders["last_refresh_error"] == view.last_refresh_error
        page = (await c.get("/groups/orders", headers=HTML)).text
        listing = (await c.get("/groups")).json()
    assert 'id="refresh-error"' in page
    assert "Unable to bootstrap" in page
    assert listing["lag_view"]["kafka_up"] is False


async def test_everything_from_kafka_is_escaped(view: FakeLagView) -> None:
    hostile = '<img src=x onerror="alert(1)">'
    snapshot = snapshot_of(
        f"g{hostile}",
        {f"m{hostile}": {f"t{hostile}": [0]}},
        {f"t{hostile}": [5]},
        as_of=datetime.now(UTC),
        error=f"broker said {hostile}",
    )
    view.cached[snapshot.group_id] = snapshot
    async with served(app_for(view)) as c:
        detail = (await c.get("/groups/" + quote(snapshot.group_id, safe=""), headers=HTML)).text
        listing = (await c.get("/groups", headers=HTML)).text
    for page in (detail, listing):
        assert "<img" not in page
        # markupsafe writes a double quote as &#34; (html.escape wrote &quot;)
        assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in page


async def test_secrets_never_reach_groups(view: FakeLagView) -> None:
    environ = {
        "LAGASSIGN_TOKEN": TOKEN,
        "LAGASSIGN_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
        "LAGASSIGN_SASL_MECHANISM": "SCRAM-SHA-256",
        "LAGASSIGN_SASL_USERNAME": "client",
        "LAGASSIGN_SASL_PASSWORD": SASL_PASSWORD,
    }
    auth = {"authorization": f"Bearer {TOKEN}"}
    async with served(app_for(view, environ)) as c:
        bodies = [
            (await c.get("/groups", headers=auth)).text,
            (await c.get("/groups", headers={**auth, **HTML})).text,
            (await c.get("/groups/orders", headers=auth)).text,
            (await c.get("/groups/orders", headers={**auth, **HTML})).text,
            (await c.get("/groups/nobody", headers=auth)).text,
        ]
    for text in bodies:
        assert TOKEN not in text
        assert SASL_PASSWORD not in text


async def test_a_token_protects_groups(view: FakeLagView) -> None:
    async with served(app_for(view, {"LAGASSIGN_TOKEN": TOKEN})) as c:
        for path in ("/groups", "/groups/orders"):
            refused = await c.get(path)
            assert refused.status_code == 401
            assert refused.json()["error"]["code"] == "unauthorized"
            wrong = await c.get(path, headers={"authorization": "Bearer wrong-token-0123456789"})
            assert wrong.status_code == 401
            ok = await c.get(path, headers={"authorization": f"Bearer {TOKEN}"})
            assert ok.status_code == 200


async def test_the_openapi_document_lists_both_routes(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert "/groups" in paths
    assert "/groups/{group_id}" in paths
    assert "text/html" in paths["/groups"]["get"]["responses"]["200"]["content"]


@pytest.mark.parametrize(
    ("accept", "html"),
    [
        (BROWSER_ACCEPT, True),
        ("text/html", True),
        ("text/*", True),
        ("*/*", False),
        ("application/json", False),
        ("application/json, text/html;q=0.9", False),
        ("text/html;q=0.5, application/json", False),
        ("text/html, application/json", False),
        ("application/json;q=0.1, text/html", True),
        ("", False),
        (None, False),
        ("garbage;;;,/,", False),
        ("text/html;q=nonsense", False),
    ],
)
def test_content_negotiation(accept: str | None, html: bool) -> None:
    assert prefers_html(accept) is html
