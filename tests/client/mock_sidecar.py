"""``httpx.MockTransport`` handlers that answer like a sidecar, well or badly, for unit tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import httpx
import pytest

from tests.client.answers import giving_a_partition_twice, missing_a_partition, roundrobin_answer

Handler = Callable[[httpx.Request], httpx.Response]


def answering(requests: list[dict[str, object]] | None = None) -> Handler:
    """A healthy sidecar: a valid round-robin answer; records each request body."""

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if requests is not None:
            requests.append(body)
        return httpx.Response(200, json=roundrobin_answer(body))

    return handler


def holding_back(release: threading.Event) -> Handler:
    """A sidecar that answers only once ``release`` is set (at most 10 s later)."""

    def handler(request: httpx.Request) -> httpx.Response:
        release.wait(10)
        return httpx.Response(200, json=roundrobin_answer(json.loads(request.content)))

    return handler


def refusing(request: httpx.Request) -> httpx.Response:
    """Nothing listens: httpx's error with the socket's ConnectionRefusedError as its cause."""
    raise httpx.ConnectError("[Errno 111] Connection refused", request=request) from (
        ConnectionRefusedError(111, "Connection refused")
    )


def failing(request: httpx.Request) -> httpx.Response:
    return httpx.Response(500, text="Internal Server Error")


def garbling(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, content=b'{"assignment": {"c-1": ')


def dropping_a_partition(request: httpx.Request) -> httpx.Response:
    return httpx.Response(
        200, json=missing_a_partition(roundrobin_answer(json.loads(request.content)))
    )


def doubling_a_partition(request: httpx.Request) -> httpx.Response:
    answer = roundrobin_answer(json.loads(request.content))
    return httpx.Response(200, json=giving_a_partition_twice(answer))


# Each fault of the issue, with the fallback reason the leader must count it under.
FAULTS: dict[str, tuple[Handler, str]] = {
    "stopped": (refusing, "connection_refused"),
    "http-500": (failing, "status"),
    "malformed-json": (garbling, "malformed"),
    "missing-partition": (dropping_a_partition, "invalid"),
    "partition-twice": (doubling_a_partition, "invalid"),
}
#: The faults as the parameters ``handler, reason`` of a test, named by the fault.
FAULT_CASES = [
    pytest.param(handler, reason, id=fault) for fault, (handler, reason) in sorted(FAULTS.items())
]
