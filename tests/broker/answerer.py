"""A stand-in for the sidecar's topic-id ``POST /assign``: a real HTTP server on 127.0.0.1.

The sidecar side of consumer-protocol groups (resolving the group from member ids) is
not part of these tests; this server answers the broker plugin directly. Healthy, it
returns a known, deliberately lopsided but valid assignment keyed by the topic ids it
received (member ``i`` in member-id order gets ``i + 1`` partitions, the last one the
rest), which Kafka's ``uniform`` never gives, so a group that ends with it was assigned
by the plugin. :attr:`Answerer.fault` turns it into a fault the plugin must survive:

- ``slow``: the answer comes ``slow_s`` seconds late, long past the plugin's deadline;
- ``status-500``: HTTP 500; ``unknown-group``: HTTP 404;
- ``malformed-json``: a 200 whose body is cut off mid-JSON;
- ``missing-partition`` / ``partition-twice``: the answer with one partition left out,
  or also given to a second member;
- :meth:`Answerer.stop`: nothing listens any more (a stopped sidecar).
"""

from __future__ import annotations

import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Fault = Literal[
    "none",
    "slow",
    "status-500",
    "unknown-group",
    "malformed-json",
    "missing-partition",
    "partition-twice",
]

Assignment = dict[str, dict[str, list[int]]]


def lopsided(request: dict[str, Any]) -> Assignment:
    """Member ``i`` (by member id) gets the next ``i + 1`` partitions; the last, the rest."""
    members = sorted(m["member_id"] for m in request["members"])
    partitions = [
        (t, p) for t, count in sorted(request["partitions"].items()) for p in range(count)
    ]
    answer: Assignment = {m: {} for m in members}
    start = 0
    for i, member in enumerate(members):
        end = len(partitions) if i == len(members) - 1 else min(len(partitions), start + i + 1)
        for topic, partition in partitions[start:end]:
            answer[member].setdefault(topic, []).append(partition)
        start = end
    return answer


class Answerer:
    """Start with :meth:`start`, end with :meth:`stop`; ``url`` is its base URL."""

    def __init__(self, slow_s: float = 5.0) -> None:
        self.slow_s = slow_s
        self.fault: Fault = "none"
        self.requests: list[dict[str, Any]] = []
        self.answers: list[Assignment] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._port = 0
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    def start(self) -> Answerer:
        """Listen (again) on 127.0.0.1, on the same port as before if it ran already."""
        self._stopping.clear()
        server = ThreadingHTTPServer(("127.0.0.1", self._port), self._handler_class())
        server.daemon_threads = True
        self._port = int(server.server_address[1])
        self._server = server
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        """Stop listening and release any answer held back; the port refuses connections."""
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def answer_for(self, member_ids: set[str]) -> Assignment | None:
        """The latest answer given to exactly these members (whatever other groups were given)."""
        with self._lock:
            return next((a for a in reversed(self.answers) if set(a) == member_ids), None)

    def _reply(self, request: dict[str, Any]) -> tuple[int, bytes]:
        answer = lopsided(request)
        fault = self.fault
        if fault == "slow":
            # Held back past the plugin's deadline; never recorded (the plugin gave up on it).
            self._stopping.wait(self.slow_s)
            return 200, json.dumps({"assignment": answer, "revoked": {}}).encode()
        elif fault == "status-500":
            return 500, b'{"error": {"code": "internal", "message": "injected"}}'
        elif fault == "unknown-group":
            return 404, b'{"error": {"code": "unknown_group", "message": "no member is known"}}'
        elif fault == "malformed-json":
            return 200, json.dumps({"assignment": answer}).encode()[:-7]
        elif fault == "missing-partition":
            member = next(m for m in answer if answer[m])
            topic = next(iter(answer[member]))
            answer[member][topic] = answer[member][topic][1:]
        elif fault == "partition-twice" and len(answer) > 1:
            first, second = sorted(answer)[:2]
            topic, partitions = next((t, ps) for t, ps in answer[second].items() if ps)
            answer[first].setdefault(topic, []).append(partitions[0])
        with self._lock:
            self.answers.append(answer)
        return 200, json.dumps({"assignment": answer, "revoked": {}}).encode()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        answerer = self

        class Handler(BaseHTTPRequestHandler):
            # Answer at once, as uvicorn does (no Nagle delay on the small replies).
            disable_nagle_algorithm = True

            def do_GET(self) -> None:
                self._send(200 if self.path == "/livez" else 404, b"{}")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                with answerer._lock:
                    answerer.requests.append(body)
                status, reply = answerer._reply(body)
                self._send(status, reply)

            def _send(self, status: int, body: bytes) -> None:
                with contextlib.suppress(OSError):
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                return

        return Handler
