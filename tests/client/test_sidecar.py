"""The ``POST /assign`` call: what is sent, and each way it can fail, through MockTransport."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

import httpx
import pytest

from lagassign_client.errors import (
    SidecarRefused,
    SidecarStatus,
    SidecarTimeout,
    SidecarUnknownHost,
    SidecarUnreachable,
)
from lagassign_client.wire.sidecar import Sidecar

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


def test_another_connect_error_is_unreachable() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("TLS handshake failed", request=request)

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
        # the message gives what was left of the deadline when the request went out
        with pytest.raises(SidecarTimeout, match=r"no answer from \S+ within (200|1\d\d) ms"):
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


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8321/assign", "http://127.0.0.1:8321/assign/", "https://h/x/assign"]
)
def test_a_url_ending_in_assign_is_refused_with_the_base_url_to_give(url: str) -> None:
    with pytest.raises(ValueError, match="the shim adds /assign itself") as caught:
        Sidecar(url, timeout_s=1.0)
    assert repr(url.rstrip("/").removesuffix("/assign")) in str(caught.value)


def test_a_timeout_in_milliseconds_is_refused_with_the_seconds_it_meant() -> None:
    with pytest.raises(ValueError, match=r"timeout_s is in seconds.*timeout_s=1\.5"):
        Sidecar("http://127.0.0.1:8321", timeout_s=1500)


def test_an_html_error_page_becomes_one_short_line() -> None:
    page = (
        "<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n"
        + "<body>\n<center><h1>502 Bad Gateway</h1></center>\n"
        + "<hr><center>nginx</center>\n" * 40
        + "</body>\n</html>\n"
    )

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(502, text=page, headers={"content-type": "text/html"})

    with pytest.raises(SidecarStatus) as caught:
        sidecar(handler).post_assign(b"{}", soon())
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("http://sidecar.test:8321/assign answered HTTP 502: (text/html)")
    assert "<!DOCTYPE html> <html> <head><title>502 Bad Gateway" in message
    assert len(message) < 220


def test_the_sidecars_own_error_message_is_shown() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            400, json={"error": {"code": "bad_request", "message": "members[0].topics: empty"}}
        )

    with pytest.raises(SidecarStatus, match=r"HTTP 400: members\[0\]\.topics: empty$"):
        sidecar(handler).post_assign(b"{}", soon())


def test_nothing_listening_is_a_refused_connection() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # The port is free again: nothing listens on it.
    with pytest.raises(SidecarRefused) as refused:
        Sidecar(f"http://127.0.0.1:{port}", timeout_s=2.0).post_assign(b"{}", soon(2.0))
    assert str(refused.value) == (
        f"connection refused by 127.0.0.1:{port} (http://127.0.0.1:{port}/assign):"
        " is the sidecar running there?"
    )


def test_a_host_that_does_not_resolve_is_an_unknown_host() -> None:
    # .invalid never resolves (RFC 2606); the resolver answers from its own rules.
    with pytest.raises(SidecarUnknownHost, match="unknown host"):
        Sidecar("http://lagassign.invalid:8321", timeout_s=5.0).post_assign(b"{}", soon(5.0))


def test_a_reset_connection_is_unreachable() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.RemoteProtocolError("peer closed connection", request=request)

    with pytest.raises(SidecarUnreachable, match="RemoteProtocolError") as caught:
        sidecar(handler).post_assign(b"{}", soon())
    assert caught.value.reason == "unreachable"
