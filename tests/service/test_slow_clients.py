"""Slow, vanishing and malformed clients against a real ``lagassign serve`` process.

Raw sockets play the client, because an HTTP library would not send half a
request. The sidecar runs with short timeouts, so every case ends within a few
seconds; every wait is bounded.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from harness.poll import eventually
from tests.hostile import request
from tests.service.serving import served_without_a_broker

WAIT_S = 15.0
BODY = json.dumps(request()).encode()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """``lagassign serve`` without a broker (so never ready, but alive), stopped by its pid."""
    log = tmp_path_factory.mktemp("slow") / "sidecar.log"
    settings = {
        "LAGASSIGN_HEADER_TIMEOUT_S": "1",
        "LAGASSIGN_BODY_TIMEOUT_S": "1",
        "LAGASSIGN_KEEP_ALIVE_TIMEOUT_S": "1",
        "LAGASSIGN_MAX_HEADER_BYTES": "16384",
        "LAGASSIGN_MAX_CONNECTIONS": "40",
        "LAGASSIGN_LOG_LEVEL": "debug",
    }
    with served_without_a_broker(settings, log) as sidecar:
        yield sidecar.url, log


def connect(url: str) -> socket.socket:
    host, _, port = url.removeprefix("http://").partition(":")
    sock = socket.create_connection((host, int(port)), timeout=WAIT_S)
    sock.settimeout(WAIT_S)
    return sock


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (bounded by the socket timeout)."""
    received = b""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        chunk = sock.recv(65536)
        if not chunk:
            return received
        received += chunk
    raise AssertionError(f"the server kept the connection open past {WAIT_S} s")


def head(length: int, host: str = "localhost") -> bytes:
    return (
        f"POST /assign HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()


def status_and_body(raw: bytes) -> tuple[int, bytes]:
    status_line, _, rest = raw.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def failures(url: str, reason: str) -> float:
    """``lagassign_assign_failures_total{reason}`` as the sidecar exports it (0 if absent)."""
    text = httpx.get(f"{url}/metrics", timeout=10).text
    for line in text.splitlines():
        if line.startswith(f'lagassign_assign_failures_total{{reason="{reason}"}} '):
            return float(line.rpartition(" ")[2])
    return 0.0


def test_partial_headers_are_cut_off(served: tuple[str, Path]) -> None:
    url, _ = served
    with connect(url) as sock:
        sock.sendall(b"POST /assign HTTP/1.1\r\nHost: localhost\r\n")
        started = time.monotonic()
        assert read_until_closed(sock) == b""
        assert time.monotonic() - started < WAIT_S


def test_idle_connections_are_cut_off(served: tuple[str, Path]) -> None:
    url, _ = served
    socks = [connect(url) for _ in range(30)]
    try:
        for sock in socks:
            assert read_until_closed(sock) == b""
    finally:
        for sock in socks:
            sock.close()
    assert httpx.get(f"{url}/livez", timeout=10).status_code == 200


def test_a_partial_body_gets_408_in_the_error_shape(served: tuple[str, Path]) -> None:
    url, _ = served
    with connect(url) as sock:
        sock.sendall(head(len(BODY)) + BODY[:10])
        status, body = status_and_body(read_until_closed(sock))
    assert status == 408
    assert json.loads(body)["error"]["code"] == "request_timeout"


def test_a_kept_alive_connection_serves_then_closes_when_idle(served: tuple[str, Path]) -> None:
    url, _ = served
    with connect(url) as sock:
        sock.sendall(head(len(BODY)) + BODY)
        status, _ = status_and_body(read_until_closed(sock))
    assert status == 200


def test_disconnects_mid_body_are_logged_at_debug_and_not_counted(
    served: tuple[str, Path],
) -> None:
    url, log = served
    for _ in range(20):
        with connect(url) as sock:
            sock.sendall(head(len(BODY)) + BODY[: len(BODY) // 2])
            time.sleep(0.05)
    eventually(
        lambda: log.read_text().count("client disconnected during POST /assign") >= 20,
        WAIT_S * 4,
        "20 disconnects logged",
    )
    text = log.read_text()
    assert "Traceback" not in text
    assert [line for line in text.splitlines() if " ERROR lagassign" in line] == []
    assert failures(url, "unavailable") == 0
    assert httpx.post(f"{url}/assign", json=request(), timeout=10).status_code == 200


@pytest.mark.parametrize(
    "raw",
    [
        b"GARBAGE\r\n\r\n",
        # Headers still incomplete past LAGASSIGN_MAX_HEADER_BYTES.
        b"POST /assign HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 20_000,
        b"POST /assign HTTP/1.1\r\nHost: localhost\r\nContent-Length: -5\r\n\r\n",
    ],
    ids=["garbage", "headers over the limit", "negative length"],
)
def test_unparsable_requests_get_the_error_shape(served: tuple[str, Path], raw: bytes) -> None:
    url, _ = served
    with connect(url) as sock:
        sock.sendall(raw)
        status, body = status_and_body(read_until_closed(sock))
    assert status == 400
    assert json.loads(body)["error"]["code"] == "invalid_http"


def test_connections_past_the_cap_get_503_in_the_error_shape(served: tuple[str, Path]) -> None:
    url, _ = served
    # 39 idle connections and one request: 40 open, at the cap, answered.
    socks = [connect(url) for _ in range(39)]
    try:
        with connect(url) as last:
            last.sendall(head(len(BODY)) + BODY)
            status, _ = status_and_body(last.recv(65536))
        assert status == 200
        socks.append(connect(url))  # 40 idle connections: the next one is past the cap
        with connect(url) as extra:
            extra.sendall(head(len(BODY)) + BODY)
            raw = read_until_closed(extra)
        status, body = status_and_body(raw)
        assert status == 503
        assert b"content-type: application/json" in raw.lower()
        error = json.loads(body)["error"]
        assert error["code"] == "too_many_connections"
        assert error["details"] == {"max_connections": 40}
    finally:
        for sock in socks:
            sock.close()
    eventually(
        lambda: httpx.get(f"{url}/livez", timeout=10).status_code == 200,
        WAIT_S * 4,
        "/livez after the cap",
    )
