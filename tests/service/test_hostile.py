"""The app against the hostile corpus and the edges of issue 13, in the error shape.

The same corpus as the CLI's (tests/hostile.py), then what only HTTP has: the
token compared as bytes, JSON required, the Host allow-list, the HTML page's
security headers, and the constraints in the OpenAPI document.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI

from lagassign.http.app import create_app
from lagassign.limits import INT32_MAX, INT64_MAX, KAFKA_STRING_MAX
from lagassign.settings import Settings
from tests.hostile import CORPUS, Case, check_valid_answer, request
from tests.service.serving import served

pytestmark = pytest.mark.anyio
TOKEN = "a-token-of-sixteen-or-more"


def app_with(environ: dict[str, str] | None = None) -> FastAPI:
    return create_app(Settings.from_environ(environ or {}))


def assert_error_shape(body: Any, code: str) -> None:
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str)
    assert body["error"]["message"]


@pytest.mark.parametrize("case", CORPUS, ids=str)
async def test_the_hostile_corpus(case: Case) -> None:
    async with served(app_with()) as client:
        response = await client.post("/assign", content=case.body)
    assert response.status_code == case.status, response.text[:500]
    if case.status == 200:
        check_valid_answer(case.body, response.json())
    elif case.code is not None:
        assert_error_shape(response.json(), case.code)


async def test_a_non_ascii_bearer_token_is_401_not_503() -> None:
    async with served(app_with({"LAGASSIGN_TOKEN": TOKEN})) as client:
        for given in (b"Bearer \xe9", b"Bearer \xff\xfe" + TOKEN.encode(), b"\xe9 \xe9"):
            response = await client.post(
                "/assign", json=request(), headers={b"Authorization": given}
            )
            assert response.status_code == 401
            assert_error_shape(response.json(), "unauthorized")
        good = await client.post(
            "/assign", json=request(), headers={"Authorization": f"Bearer {TOKEN}"}
        )
    assert good.status_code == 200


@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "application/jsonx",
        "text/json",
    ],
)
async def test_a_body_not_declared_json_is_415(content_type: str | None) -> None:
    app = app_with()
    async with served(app) as client:
        client.headers.pop("content-type", None)
        headers = {"content-type": content_type} if content_type else {}
        response = await client.post("/assign", content=b'{"group_id": "g"}', headers=headers)
    assert response.status_code == 415
    assert_error_shape(response.json(), "unsupported_media_type")


async def test_json_with_a_charset_is_accepted() -> None:
    async with served(app_with()) as client:
        response = await client.post(
            "/assign",
            json=request(),
            headers={"content-type": "Application/JSON; charset=utf-8"},
        )
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("environ", "host", "status"),
    [
        ({}, "localhost", 200),
        ({}, "localhost:8321", 200),
        ({}, "127.0.0.1:8321", 200),
        ({}, "[::1]:8321", 200),
        ({}, "evil.example", 400),
        ({}, "evil.example:8321", 400),
        ({}, "localhost.evil.example", 400),
        ({}, "", 400),
        ({"LAGASSIGN_ALLOWED_HOSTS": "sidecar, *.svc.local"}, "sidecar:8321", 200),
        ({"LAGASSIGN_ALLOWED_HOSTS": "sidecar, *.svc.local"}, "a.svc.local", 200),
        ({"LAGASSIGN_ALLOWED_HOSTS": "sidecar, *.svc.local"}, "localhost", 400),
        ({"LAGASSIGN_ALLOWED_HOSTS": "*"}, "anything.example", 200),
        (
            {"LAGASSIGN_HOST": "0.0.0.0", "LAGASSIGN_TOKEN": TOKEN},
            "10.0.0.7:8321",
            200,
        ),
    ],
)
async def test_only_allowed_hosts_are_served(
    environ: dict[str, str], host: str, status: int
) -> None:
    async with served(app_with(environ)) as client:
        for path in ("/livez", "/metrics"):
            response = await client.get(path, headers={"host": host})
            assert response.status_code == status, (path, response.text)
            if status == 400:
                assert_error_shape(response.json(), "invalid_host")


async def test_the_html_page_sends_security_headers() -> None:
    async with served(app_with()) as client:
        response = await client.get("/groups", headers={"accept": "text/html"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    csp = response.headers["content-security-policy"]
    assert "default-src 'none'" in csp
    assert "script-src" not in csp
    assert "frame-ancestors 'none'" in csp
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_the_openapi_document_carries_the_enforced_constraints() -> None:
    async with served(app_with()) as client:
        document = (await client.get("/openapi.json")).json()
    schemas = document["components"]["schemas"]
    request_schema = schemas["AssignRequest"]["properties"]
    assert request_schema["members"]["minItems"] == 1
    assert request_schema["group_id"]["maxLength"] == KAFKA_STRING_MAX
    counts = request_schema["partitions"]["additionalProperties"]
    assert (counts["minimum"], counts["maximum"]) == (0, INT32_MAX)
    lags = request_schema["lags"]["anyOf"][0]["additionalProperties"]["items"]
    assert (lags["minimum"], lags["maximum"]) == (0, INT64_MAX)
    member = schemas["MemberIn"]["properties"]
    assert member["member_id"]["maxLength"] == KAFKA_STRING_MAX
    assert member["generation"]["anyOf"][0]["maximum"] == INT32_MAX
    responses = document["paths"]["/assign"]["post"]["responses"]
    assert {"400", "401", "413", "415", "503"} <= set(responses)
