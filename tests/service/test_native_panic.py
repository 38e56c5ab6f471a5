"""A panic in the compiled extension is answered 503 in the error shape, and the service
goes on answering.

pyo3 raises a Rust panic as ``pyo3_runtime.PanicException``, a ``BaseException``. The
extension checks its inputs and raises ValueError for what it refuses, so no request
makes it panic on demand: the panic is injected where the answer is computed, as an
exception of that very class name and module (the fault a real part cannot produce on
demand), on the event loop (a small request) and in a worker thread (a heavy one).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from lagassign.assign import rebalance
from lagassign.http.app import create_app
from lagassign.http.heavy import LIGHT_COST
from lagassign.settings import Settings
from tests.hostile import request
from tests.service.serving import served

pytestmark = pytest.mark.anyio

PanicException = type("PanicException", (BaseException,), {"__module__": "pyo3_runtime"})

SMALL = request()
HEAVY = request(partitions={"t0": LIGHT_COST + 1}, lags=None)


@pytest.mark.parametrize("body", [SMALL, HEAVY], ids=["on the loop", "in a thread"])
async def test_a_panic_is_a_503_and_the_next_request_is_answered(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, body: dict[str, Any]
) -> None:
    real = rebalance.answer_and_body
    panics = [PanicException("called `Option::unwrap()` on a `None` value")]

    def panicking(*args: Any) -> Any:
        if panics:
            raise panics.pop()
        return real(*args)

    monkeypatch.setattr(rebalance, "answer_and_body", panicking)
    with caplog.at_level(logging.ERROR, logger="lagassign.http.errors"):
        async with served(create_app(Settings.from_environ({}))) as client:
            failed = await client.post("/assign", json=body)
            after = await client.post("/assign", json=body)
    assert failed.status_code == 503
    assert failed.json()["error"]["code"] == "unavailable"
    assert "unwrap" not in failed.text
    assert after.status_code == 200
    assert any("unexpected error answering POST /assign" in r.message for r in caplog.records)


async def test_a_cancellation_is_not_taken_for_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    def cancelled(*args: Any) -> Any:
        raise asyncio.CancelledError

    monkeypatch.setattr(rebalance, "answer_and_body", cancelled)
    async with served(create_app(Settings.from_environ({}))) as client:
        with pytest.raises(asyncio.CancelledError):
            await client.post("/assign", json=SMALL)
