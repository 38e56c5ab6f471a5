"""A sidecar that misbehaves on demand: a real HTTP server on 127.0.0.1, for fault injection.

It answers ``POST /assign`` with the real sidecar's answer (``upstream``) or, with
no upstream, a per-topic round robin; :attr:`FaultySidecar.fault` turns that into
one of the faults the shims must survive:

- ``slow``: the answer comes ``slow_s`` seconds late (after the shim's deadline);
- ``status-500``: HTTP 500;
- ``malformed-json``: a 200 whose body is cut off mid-JSON;
- ``missing-partition``: the answer with one partition left out;
- ``partition-twice``: the answer with one partition also given to a second member;
- :meth:`FaultySidecar.stop`: nothing listens any more (a stopped sidecar).
"""

from __future__ import annotations

import contextlib
import json
import threading
from typing import Any, Literal

import httpx

from harness.loopback import JsonHandler, LoopbackServer
from tests.client.answers import giving_a_partition_twice, missing_a_partition, roundrobin_answer

Fault = Literal[
    "none", "slow", "status-500", "malformed-json", "missing-partition", "partition-twice"
]
FAULTS: tuple[Fault, ...] = (
    "slow",
    "status-500",
    "malformed-json",
    "missing-partition",
    "partition-twice",
)
UPSTREAM_TIMEOUT_S = 10.0


class FaultySidecar(LoopbackServer):
    """Start with :meth:`start`, end with :meth:`stop`; ``url`` is its base URL.

    A stopped sidecar may start again, on the same port.
    """

    def __init__(self, upstream: str | None = None, slow_s: float = 5.0) -> None:
        super().__init__()
        self.upstream = upstream.rstrip("/") if upstream else None
        self.slow_s = slow_s
        self.fault: Fault = "none"
        self.requests = 0
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def answer(self, raw: bytes) -> tuple[int, bytes]:
        """The (status, body) the current fault gives for one request body."""
        with self._lock:
            self.requests += 1
            fault = self.fault
            with contextlib.suppress(ValueError):
                self.bodies.append(json.loads(raw))
        if fault == "status-500":
            return 500, b"Internal Server Error"
        if fault == "malformed-json":
            return 200, b'{"group_id": "g", "assignment": {"c-1": {"t0": [0, '
        status, body = self._valid(raw)
        if status != 200:
            return status, body
        answer = json.loads(body)
        if fault == "missing-partition":
            answer = missing_a_partition(answer)
        elif fault == "partition-twice":
            answer = giving_a_partition_twice(answer)
        elif fault == "slow":
            self.stopping.wait(self.slow_s)
        return 200, json.dumps(answer).encode()

    def _valid(self, raw: bytes) -> tuple[int, bytes]:
        if self.upstream is None:
            return 200, json.dumps(roundrobin_answer(json.loads(raw))).encode()
        response = httpx.post(
            f"{self.upstream}/assign",
            content=raw,
            headers={"content-type": "application/json"},
            timeout=UPSTREAM_TIMEOUT_S,
        )
        return response.status_code, response.content

    def handler_class(self) -> type[JsonHandler]:
        sidecar = self

        class Handler(JsonHandler):
            # HTTP/1.0: one request per connection, so a stopped sidecar leaves no
            # kept-alive connection behind that would still answer.
            protocol_version = "HTTP/1.0"

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                if self.path != "/assign":
                    status, body = 404, b"{}"
                else:
                    status, body = sidecar.answer(raw)
                self.send_json(status, body)

        return Handler
