"""``GET /groups`` is bounded in bytes: 1,000 groups of 32,000-character ids made 33 MB
of JSON and 96 MB of HTML (issue 26). The shortest ids are listed while they fit; the
rest are counted in a header and each is still shown at ``/groups/{group_id}``."""

from __future__ import annotations

from collections.abc import Iterable

import httpx
import pytest

from lagassign.http.app import create_app
from lagassign.http.groups import LIST_ID_BYTES, OMITTED_HEADER
from lagassign.settings import Settings
from tests.hostile import request
from tests.service.serving import served

pytestmark = pytest.mark.anyio

LONG = 32_000
GROUPS = 1_000


def long_id(i: int) -> str:
    """A group id of ``LONG`` characters, numbered first so that each differs early."""
    return f"{i:04d}-" + "g" * (LONG - 5)


async def assign_each(client: httpx.AsyncClient, group_ids: Iterable[str]) -> None:
    """One ``POST /assign`` per group id, so the sidecar tracks each group."""
    for group_id in group_ids:
        response = await client.post("/assign", json=request(group_id=group_id))
        assert response.status_code == 200


async def test_the_group_list_is_bounded_and_keeps_the_ordinary_groups() -> None:
    app = create_app(Settings.from_environ({}))
    async with served(app) as client:
        await assign_each(client, ["orders", *map(long_id, range(GROUPS - 1))])
        as_json = await client.get("/groups", headers={"accept": "application/json"})
        as_html = await client.get("/groups", headers={"accept": "text/html"})
        one = await client.get(f"/groups/{long_id(GROUPS - 2)}")
    assert as_json.status_code == 200
    listed = [g["group_id"] for g in as_json.json()["groups"]]
    assert "orders" in listed
    assert len(listed) == 1 + (LIST_ID_BYTES - len("orders")) // LONG
    assert int(as_json.headers[OMITTED_HEADER]) == GROUPS - len(listed)
    assert len(as_json.content) < 2 * LIST_ID_BYTES
    assert as_html.status_code == 200
    assert int(as_html.headers[OMITTED_HEADER]) == GROUPS - len(listed)
    assert len(as_html.content) < 8 * LIST_ID_BYTES
    assert one.status_code == 200
    assert one.json()["group_id"] == long_id(GROUPS - 2)
