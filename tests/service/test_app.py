"""The app as a whole: lifespan, the one error shape, the OpenAPI document."""

from __future__ import annotations

import pytest

from lagassign.http.app import create_app
from lagassign.http.parts import sidecar_of
from lagassign.settings import Settings
from tests.service.fake_lag_view import FakeLagView
from tests.service.serving import served

pytestmark = pytest.mark.anyio


async def test_the_lifespan_starts_and_stops_the_lag_view_once() -> None:
    view = FakeLagView()
    app = create_app(Settings.from_environ({}), lag_view=view)
    assert (view.started, view.stopped) == (0, 0)
    async with served(app) as client:
        assert (view.started, view.stopped) == (1, 0)
        assert (await client.get("/livez")).status_code == 200
    assert (view.started, view.stopped) == (1, 1)
    assert sidecar_of(app).lag_view is view
    assert sidecar_of(app).forecast is None


async def test_unknown_routes_and_methods_answer_in_the_error_shape() -> None:
    async with served(create_app(Settings.from_environ({}))) as client:
        missing = await client.get("/nothing-here")
        wrong_method = await client.get("/assign")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
    assert wrong_method.status_code == 405
    assert wrong_method.json()["error"]["code"] == "method_not_allowed"


async def test_the_openapi_document_describes_assign_with_its_request_body() -> None:
    async with served(create_app(Settings.from_environ({}))) as client:
        response = await client.get("/openapi.json")
    assert response.status_code == 200
    document = response.json()
    schemas = document["components"]["schemas"]
    operation = document["paths"]["/assign"]["post"]
    body_ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert body_ref == "#/components/schemas/AssignRequest"
    request_schema = schemas["AssignRequest"]
    assert {"members", "partitions"} <= set(request_schema["required"])
    # group_id is required except in the topic-id form, which the schema shows.
    assert {"group_id", "topic_ids"} <= set(request_schema["properties"])
    assert (
        request_schema["properties"]["members"]["items"]["$ref"] == "#/components/schemas/MemberIn"
    )
    assert "MemberIn" in schemas
    assert "AssignResponse" in schemas
    assert {"200", "400", "401", "413", "503"} <= set(operation["responses"])
    for path in ("/metrics", "/livez", "/readyz"):
        assert path in document["paths"]


async def test_request_validation_errors_answer_422_in_the_error_shape() -> None:
    app = create_app(Settings.from_environ({}))

    @app.get("/probe")
    async def probe(count: int) -> dict[str, int]:
        return {"count": count}

    async with served(app) as client:
        response = await client.get("/probe", params={"count": "many"})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert error["message"].startswith("query.count: ")
    assert error["details"][0]["field"] == "query.count"
