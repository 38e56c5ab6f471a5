"""The ``POST /assign`` call: what is sent, and each way it can fail, through MockTransport."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import httpx
import pytest

from lagassign_client.errors import SidecarStatus, SidecarTimeout, SidecarUnreachable
from lagassign_client.sidecar import Sidecar

Handler = Callable[[httpx.Request], httpx.Response]


def sidecar(handler: Handler, timeout_s: float = 1.0, token: str | None = None) -> Sidecar:
    return Sidecar(
        "http://sidecar.test:8321",
        timeout_s=timeout_s,
        token=token,
        transport=httpx.MockTransport(handler),
    )


def soon(seconds: float = 1.0) -> float:
    return time.monotonic() + seconds


def test_the_request_is_a_json_post_to_assign() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=b'{"ok": 1}')

    assert sidecar(handler).post_assign(b'{"group_id": "g"}', soon()) == b'{"ok": 1}'
    (request,) = seen
    assert request.method == "POST"
    assert str(request.url) == "http://sidecar.test:8321/assign"
    assert request.headers["content-type"] == "application/json"
    assert request.content == b'{"group_id": "g"}'
    assert "authorization" not in request.headers


def test_a_token_is_sent_as_a_bearer_token() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        return httpx.Response(200, content=b"{}")

    sidecar(handler, token="s3cret").post_assign(b"{}", soon())
    assert seen == ["Bearer s3cret"]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8321", "http://127.0.0.1:8321/assign"),
        ("http://127.0.0.1:8321/", "http://127.0.0.1:8321/assign"),
        ("https://lagassign.internal/api", "https://lagassign.internal/api/assign"),
    ],
)
def test_the_assign_path_is_added_to_the_base_url(url: str, expected: str) -> None:
    assert Sidecar(url, timeout_s=1.0).url == expected


@pytest.mark.parametrize("url", ["127.0.0.1:8321", "ftp://host/", "http://"])
def test_a_url_that_is_not_http_is_refused_at_construction(url: str) -> None:
    with pytest.raises(ValueError, match="url"):
        Sidecar(url, timeout_s=1.0)


@pytest.mark.parametrize("timeout_s", [0.0, -1.0, float("nan"), float("inf")])
def test_a_nonsense_timeout_is_refused_at_construction(timeout_s: float) -> None:
    with pytest.raises(ValueError, match="timeout_s"):
        Sidecar("http://127.0.0.1:8321", timeout_s=timeout_s)


@pytest.mark.parametrize("status", [400, 401, 413, 500, 503])
def test_any_status_but_200_is_a_status_failure(status: int) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json={"error": {"code": "x", "message": "no"}})

    with pytest.raises(SidecarStatus, match=f"HTTP {status}") as caught:
        sidecar(handler).post_assign(b"{}", soon())
    assert caught.value.status == status


def test_a_refused_connection_is_unreachable() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(SidecarUnreachable, match="ConnectError"):
        sidecar(handler).post_assign(b"{}", soon())


def test_an_httpx_timeout_is_a_timeout() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("read timed out", request=request)

    with pytest.raises(SidecarTimeout, match="ReadTimeout"):
        sidecar(handler).post_assign(b"{}", soon())


def test_the_deadline_is_hard_even_when_no_network_timeout_fires() -> None:
    release = threading.Event()

    def handler(request: httpx.Request) -> httpx.Response:
        release.wait(10)  # a sidecar that holds the answer back
        return httpx.Response(200, content=b"{}")

    started = time.monotonic()
    try:
        with pytest.raises(SidecarTimeout, match="within 200 ms"):
            sidecar(handler, timeout_s=0.2).post_assign(b"{}", started + 0.2)
        waited = time.monotonic() - started
    finally:
        release.set()
    # Bounded by the deadline, not by the handler's 10 s; the margin is for a busy machine.
    assert 0.2 <= waited < 2.0


def test_a_deadline_already_past_sends_nothing() -> None:
    calls: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(200, content=b"{}")

    with pytest.raises(SidecarTimeout, match="before the request"):
        sidecar(handler).post_assign(b"{}", time.monotonic() - 0.01)
    assert calls == []
