"""A schema-driven fuzz of ``POST /assign``: bodies drawn from the served OpenAPI document.

Request bodies are drawn from the ``AssignRequest`` schema the app serves at
``/openapi.json`` (tests/service/json_schema.py; hypothesis-jsonschema does not
run on the Hypothesis this project uses), so the document's constraints are
exercised too, and a second strategy draws consistent rebalances that mostly succeed.
Whatever the body: no 5xx, every error in the error shape, every 200 a valid
assignment by the core's checker. Seeded (the session's derandomized profile)
and bounded: 200 examples each, partitions capped at 10,000 per request.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.assign_requests import request_body
from lagassign.core.model import Rebalance
from lagassign.core.strategies import STRATEGIES
from lagassign.http.app import create_app
from lagassign.settings import Settings
from tests.hostile import check_valid_answer
from tests.service.json_schema import from_schema
from tests.service.serving import served
from tests.strategies import rebalances

FUZZ_SETTINGS = settings(
    max_examples=200,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)


class Client:
    """The in-process app on one event loop, driven from Hypothesis' synchronous examples."""

    def __init__(self, runner: asyncio.Runner, client: httpx.AsyncClient) -> None:
        self.runner = runner
        self.client = client

    def post(self, body: bytes) -> httpx.Response:
        return self.runner.run(self.client.post("/assign", content=body))


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    app = create_app(Settings.from_environ({"LAGASSIGN_MAX_PARTITIONS": "10000"}))
    with asyncio.Runner() as runner:
        serving = served(app)
        async_client = runner.run(serving.__aenter__())
        try:
            yield Client(runner, async_client)
        finally:
            runner.run(serving.__aexit__(None, None, None))


def request_bodies() -> st.SearchStrategy[Any]:
    """Bodies valid against the AssignRequest schema of the served document."""
    document = create_app(Settings.from_environ({})).openapi()
    return from_schema({"$ref": "#/components/schemas/AssignRequest"}, document)


def check_answer(client: Client, body: bytes) -> int:
    response = client.post(body)
    assert response.status_code < 500, response.text[:1000]
    if response.status_code == 200:
        check_valid_answer(body, response.json())
    else:
        error = response.json()["error"]
        assert error["code"]
        assert error["message"]
    return response.status_code


@FUZZ_SETTINGS
@given(body=request_bodies())
def test_bodies_from_the_openapi_schema(client: Client, body: dict[str, Any]) -> None:
    check_answer(client, json.dumps(body).encode())


@FUZZ_SETTINGS
@given(
    rebalance=rebalances(max_lag=2**63 - 1),
    strategy=st.sampled_from(list(STRATEGIES)),
    protocol=st.sampled_from(["eager", "cooperative"]),
)
def test_consistent_rebalances_get_valid_answers(
    client: Client, rebalance: Rebalance, strategy: str, protocol: str
) -> None:
    body = json.dumps(
        request_body(rebalance, "fuzz", strategy=strategy, protocol=protocol)
    ).encode()
    assert check_answer(client, body) == 200
