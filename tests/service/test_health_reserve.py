"""``/livez`` and ``/readyz`` answer even when the connection cap is full of idle sockets.

A real ``lagassign serve`` (no broker: alive, never ready) with a cap of 5
connections; anyone can open idle sockets before any token check, and the
liveness probe must still get its 200.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import httpx
import pytest

from harness.poll import eventually
from harness.sidecar import SidecarProcess
from tests.hostile import request
from tests.service.serving import served_without_a_broker

CAP = 5
IDLE = 3 * CAP
BODY = json.dumps(request()).encode()


@pytest.fixture(scope="module")
def sidecar(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SidecarProcess]:
    settings = {
        "LAGASSIGN_MAX_CONNECTIONS": str(CAP),
        # The idle sockets stay open for the whole test.
        "LAGASSIGN_HEADER_TIMEOUT_S": "120",
    }
    log = tmp_path_factory.mktemp("health-reserve") / "sidecar.log"
    with served_without_a_broker(settings, log) as process:
        yield process


def idle_sockets(url: str, count: int) -> list[socket.socket]:
    host, _, port = url.removeprefix("http://").partition(":")
    return [socket.create_connection((host, int(port)), timeout=10) for _ in range(count)]


def refused_for_connections(client: httpx.Client) -> bool:
    response = client.post("/assign", content=BODY, headers={"content-type": "application/json"})
    return (
        response.status_code == 503 and response.json()["error"]["code"] == "too_many_connections"
    )


def test_the_health_probes_answer_with_the_cap_full_of_idle_sockets(
    sidecar: SidecarProcess,
) -> None:
    socks = idle_sockets(sidecar.url, IDLE)
    try:
        with httpx.Client(base_url=sidecar.url, timeout=10) as client:
            # The cap is full once a real request is refused for it.
            eventually(
                lambda: refused_for_connections(client), 30, "POST /assign refused at the cap"
            )
            live = client.get("/livez")
            assert live.status_code == 200
            assert live.json() == {"status": "alive"}
            ready = client.get("/readyz")
            # Not ready (no broker), but for its own reason, not the cap's.
            assert ready.status_code == 503
            assert ready.json()["error"]["code"] == "unavailable"
            # The cap still holds for everything else.
            assert refused_for_connections(client)
    finally:
        for sock in socks:
            sock.close()
