"""``POST /assign`` reads UTF-8 JSON only: another charset or a compressed body gets 415,
never misread as UTF-8 (issue 26)."""

from __future__ import annotations

import gzip
import json

import pytest

from lagassign.http.app import create_app
from lagassign.settings import Settings
from tests.hostile import request
from tests.service.serving import served

pytestmark = pytest.mark.anyio

BODY = json.dumps(request()).encode()


@pytest.mark.parametrize(
    ("headers", "content"),
    [
        ({"content-type": "application/json; charset=utf-16"}, BODY.decode().encode("utf-16")),
        ({"content-type": "application/json; charset=latin-1"}, BODY),
        (
            {"content-type": "application/json", "content-encoding": "gzip"},
            gzip.compress(BODY),
        ),
        ({"content-type": "application/json", "content-encoding": "br"}, BODY),
    ],
    ids=["utf-16", "latin-1", "gzip", "br"],
)
async def test_another_charset_or_a_compressed_body_gets_415(
    headers: dict[str, str], content: bytes
) -> None:
    async with served(create_app(Settings.from_environ({}))) as client:
        response = await client.post("/assign", content=content, headers=headers)
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", 'application/json;charset="UTF-8"'],
)
async def test_utf8_json_is_read(content_type: str) -> None:
    async with served(create_app(Settings.from_environ({}))) as client:
        response = await client.post(
            "/assign",
            content=BODY,
            headers={"content-type": content_type, "content-encoding": "identity"},
        )
    assert response.status_code == 200
