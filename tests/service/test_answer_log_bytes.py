"""The answer log's byte cap counts bytes: ids of 4-byte characters weigh four times
their ASCII twins (issue 26: 771 MB against 199 MB of RSS under the same cap)."""

from __future__ import annotations

import pytest

from lagassign.http.app import create_app
from lagassign.http.parts import sidecar_of
from lagassign.settings import Settings
from tests.hostile import request
from tests.service.serving import served

pytestmark = pytest.mark.anyio

CHARS = 8_000


async def answer_log_bytes(letter: str) -> int:
    """The answer log's bytes after one answer of 20 members with ids of ``letter``."""
    app = create_app(Settings.from_environ({}))
    members = [{"member_id": f"{i}-" + letter * CHARS, "topics": ["t0"]} for i in range(20)]
    async with served(app) as client:
        assert (await client.post("/assign", json=request(members=members))).status_code == 200
        return sidecar_of(app).answers.bytes


async def test_ids_of_four_byte_characters_count_four_bytes_a_character() -> None:
    ascii_bytes = await answer_log_bytes("m")
    wide_bytes = await answer_log_bytes("\U0001f600")
    # Python holds these ids in 4 bytes a character; the estimate must not hold less.
    assert wide_bytes >= 20 * 4 * CHARS
    assert wide_bytes - ascii_bytes >= 20 * 3 * CHARS
