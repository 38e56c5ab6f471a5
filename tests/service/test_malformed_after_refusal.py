"""A request refused before its body is read, whose body then turns out malformed, is
answered without a traceback (issue 26: a refused ``Host`` with a malformed chunked
body, unauthenticated, wrote 42 log lines each).

A real ``lagassign serve`` with a token; raw sockets, because an HTTP library would
not send a malformed chunk. The malformed bytes come with the headers (refused while
the app's answer is still to be sent) or after the refusal has been read.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import pytest

from harness.poll import eventually
from harness.sidecar import SidecarProcess
from tests.service.serving import served_without_a_broker

ROUNDS = 10
#: Refused for its host, and (an allowed host) for its missing token.
HEADS = [
    b"POST /assign HTTP/1.1\r\nHost: " + host + b"\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n"
    for host in (b"evil.example", b"localhost")
]
BAD_CHUNK = b"ZZ\r\nabc\r\n0\r\n\r\n"
INVALID = "Invalid HTTP request received."


@pytest.fixture(scope="module")
def sidecar(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SidecarProcess]:
    settings = {"LAGASSIGN_TOKEN": "s3cret-token-for-the-test"}
    log = tmp_path_factory.mktemp("malformed") / "sidecar.log"
    with served_without_a_broker(settings, log) as process:
        yield process


def connect(sidecar: SidecarProcess) -> socket.socket:
    port = int(sidecar.url.rpartition(":")[2])
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def read_all(sock: socket.socket) -> bytes:
    received = b""
    for _ in range(100):
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += chunk
    return received


@pytest.mark.parametrize("head", HEADS, ids=["refused host", "no token"])
def test_a_malformed_body_after_a_refusal_writes_no_traceback(
    sidecar: SidecarProcess, head: bytes
) -> None:
    logged = sidecar.log_path.read_text().count(INVALID)
    for _ in range(ROUNDS):
        with connect(sidecar) as sock:
            sock.sendall(head + BAD_CHUNK)
            answer = read_all(sock)
        assert answer.startswith(b"HTTP/1.1 400 "), answer
        with connect(sidecar) as sock:
            sock.sendall(head)
            refused = sock.recv(65536)
            assert refused.startswith((b"HTTP/1.1 400 ", b"HTTP/1.1 401 ")), refused
            sock.sendall(BAD_CHUNK)
            read_all(sock)
    eventually(
        lambda: sidecar.log_path.read_text().count(INVALID) >= logged + 2 * ROUNDS,
        30,
        "every malformed body logged as one warning",
    )
    text = sidecar.log_path.read_text()
    assert "Traceback" not in text
    assert "Exception in ASGI application" not in text
    assert " ERROR uvicorn" not in text
    assert " ERROR asyncio" not in text
    assert httpx.get(f"{sidecar.url}/livez", timeout=10).status_code == 200
