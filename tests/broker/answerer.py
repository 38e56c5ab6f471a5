"""A stand-in for the sidecar's topic-id ``POST /assign``: a real HTTP server on 127.0.0.1.

The sidecar side of consumer-protocol groups (resolving the group from member ids) is
not part of these tests; this server answers the broker plugin directly. Healthy, it
returns a known, deliberately lopsided but valid assignment keyed by the topic ids it
received (member ``i`` in member-id order gets ``i + 1`` partitions, the last one the
rest), which Kafka's ``uniform`` never gives, so a group that ends with it was assigned
by the plugin; in the form the request asks for (the plugin asks for ``packed``).
:attr:`Answerer.fault` turns it into a fault the plugin must survive:

- ``slow``: the answer comes ``slow_s`` seconds late, long past the plugin's deadline;
- ``late``: the healthy answer, ``late_s`` seconds late (within a deadline raised for it);
- ``status-500``: HTTP 500; ``unknown-group``: HTTP 404;
- ``malformed-json``: a 200 whose body is cut off mid-JSON;
- ``missing-partition`` / ``partition-twice``: the answer with one partition left out,
  or also given to a second member;
- :meth:`Answerer.stop`: nothing listens any more (a stopped sidecar).

With :attr:`Answerer.token` set it checks the bearer token as the sidecar does:
``POST /assign`` and ``GET /groups/...`` answer 401 without it.

With ``forward`` (a real sidecar's base URL) a healthy answerer is a recording proxy
instead: it passes each request on to that sidecar and its reply back unchanged, and
keeps both in :attr:`Answerer.exchanges`, so a test sees what the plugin sent.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from harness.loopback import JsonHandler, LoopbackServer
from tests.client.answers import packed

Fault = Literal[
    "none",
    "slow",
    "late",
    "status-500",
    "unknown-group",
    "malformed-json",
    "missing-partition",
    "partition-twice",
]

Assignment = dict[str, dict[str, list[int]]]


@dataclass(frozen=True)
class Exchange:
    """One request the plugin sent through the recording proxy, and the sidecar's reply."""

    request: dict[str, Any]
    status: int
    reply: bytes


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


def in_requested_form(request: dict[str, Any], answer: Assignment) -> dict[str, Any]:
    """The answer body in the form the request asks for: packed (the plugin's) or nested."""
    if request.get("answer_form") == "packed":
        topics = list(request["partitions"])
        return {"topics": topics, "assignment": packed(answer, topics), "revoked": {}}
    return {"assignment": answer, "revoked": {}}


class Answerer(LoopbackServer):
    """Start with :meth:`start`, end with :meth:`stop`; ``url`` is its base URL."""

    def __init__(self, slow_s: float = 5.0, forward: str | None = None) -> None:
        super().__init__()
        self.slow_s = slow_s
        self.late_s = 0.6
        self.token: str | None = None
        self.forward = forward
        self.exchanges: list[Exchange] = []
        # One pooled connection to the sidecar, as a real caller keeps.
        self._client = httpx.Client()
        self.fault: Fault = "none"
        self.requests: list[dict[str, Any]] = []
        self.answers: list[Assignment] = []
        self._lock = threading.Lock()

    def stop(self) -> None:
        """Stop listening and release any answer held back; the port refuses connections."""
        super().stop()
        if self.forward is not None:
            self._client.close()
            self._client = httpx.Client()

    def answer_for(self, member_ids: set[str]) -> Assignment | None:
        """The latest answer given to exactly these members (whatever other groups were given)."""
        with self._lock:
            return next((a for a in reversed(self.answers) if set(a) == member_ids), None)

    def _reply(self, path: str, request: dict[str, Any], body: bytes) -> tuple[int, bytes]:
        fault = self.fault
        if self.forward is not None and fault == "none":
            try:
                sent = self._client.post(
                    f"{self.forward}{path}",
                    content=body,
                    headers={"content-type": "application/json"},
                    timeout=5.0,
                )
            except httpx.TransportError as error:
                return 502, json.dumps({"error": {"code": "proxy", "message": str(error)}}).encode()
            with self._lock:
                self.exchanges.append(Exchange(request, sent.status_code, sent.content))
            return sent.status_code, sent.content
        answer = lopsided(request)
        if fault == "late":
            self.stopping.wait(self.late_s)
        if fault == "slow":
            # Held back past the plugin's deadline; never recorded (the plugin gave up on it).
            self.stopping.wait(self.slow_s)
            return 200, json.dumps(in_requested_form(request, answer)).encode()
        elif fault == "status-500":
            return 500, b'{"error": {"code": "internal", "message": "injected"}}'
        elif fault == "unknown-group":
            return 404, b'{"error": {"code": "unknown_group", "message": "no member is known"}}'
        elif fault == "malformed-json":
            return 200, json.dumps(in_requested_form(request, answer)).encode()[:-7]
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
        return 200, json.dumps(in_requested_form(request, answer)).encode()

    def handler_class(self) -> type[JsonHandler]:
        answerer = self

        class Handler(JsonHandler):
            # Answer at once, as uvicorn does (no Nagle delay on the small replies).
            disable_nagle_algorithm = True

            def authorized(self) -> bool:
                token = answerer.token
                return token is None or self.headers.get("Authorization") == f"Bearer {token}"

            def do_GET(self) -> None:
                if self.path == "/livez":
                    self.send_json(200, b"{}")
                elif self.path.startswith("/groups/") and not self.authorized():
                    self.send_json(401, b'{"error": {"code": "unauthorized"}}')
                else:
                    self.send_json(404, b"{}")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                if not self.authorized():
                    self.send_json(401, b'{"error": {"code": "unauthorized"}}')
                    return
                body = json.loads(raw)
                with answerer._lock:
                    answerer.requests.append(body)
                status, reply = answerer._reply(self.path, body, raw)
                self.send_json(status, reply)

        return Handler
