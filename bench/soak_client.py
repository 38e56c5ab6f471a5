"""The soak's HTTP client: ``POST /assign``, sent once more if the server closed its connection.

The client keeps an idle connection for half the sidecar's keep-alive timeout and
sends a request once more when its connection was closed under it before any answer:
the sidecar closing an idle connection as the client reuses it is a race of HTTP/1.1
keep-alive, not a failure of the sidecar (docs/limits.md). With ``trace`` an error is
named by its kind, its connection (new or reused) and whether the body went out, e.g.
``ReadError (reused, sent)``; tracing costs the client CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

HEADERS = {"content-type": "application/json"}
# Failures of a reused connection before any answer: the server closed it as the request
# went out. POST /assign is a pure function of its body, so it is sent once more.
RETRIED_ON = (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)


@dataclass
class Exchange:
    """What httpcore's trace says of one request: a new connection or a reused one, and
    how far it got (so an error says whether it raced a connection the server closed)."""

    new_connection: bool = False
    sent: bool = False
    answered: bool = False

    async def trace(self, event: str, info: dict[str, Any]) -> None:
        if event == "connection.connect_tcp.started":
            self.new_connection = True
        elif event == "http11.send_request_body.complete":
            self.sent = True
        elif event == "http11.receive_response_headers.complete":
            self.answered = True

    def closed_under_it(self, exc: httpx.HTTPError) -> bool:
        """A reused connection failed before any answer: safe to send a pure request again."""
        return isinstance(exc, RETRIED_ON) and not self.new_connection and not self.answered

    def failure(self, exc: httpx.HTTPError) -> str:
        """``ReadError (reused, sent)``: the kind of error and the connection it happened on."""
        connection = "new" if self.new_connection else "reused"
        how_far = "sent" if self.sent else "unsent"
        return f"{type(exc).__name__} ({connection}, {how_far})"


class Failed(Exception):
    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


async def post_once_more_if_closed(
    client: httpx.AsyncClient, body: bytes, retried: dict[str, int], retry: bool, trace: bool
) -> httpx.Response:
    """``POST /assign``, sent again once if the connection was closed under it.

    A request sent again is counted in ``retried`` by its failure's kind. A failure
    raises :class:`Failed`, named by the error's type and, with ``trace``, the
    connection (new or reused) and whether the body went out. Tracing costs the
    client CPU on every request (httpcore calls it at each step), so it is off unless
    asked: without it, a request is sent again on any of ``RETRIED_ON`` before an answer
    (``POST /assign`` is a pure function of its body).
    """
    for attempt in (1, 2):
        exchange = Exchange()
        try:
            extensions = {"trace": exchange.trace} if trace else None
            return await client.post(
                "/assign", content=body, headers=HEADERS, extensions=extensions
            )
        except httpx.HTTPError as exc:
            kind = exchange.failure(exc) if trace else type(exc).__name__
            closed = exchange.closed_under_it(exc) if trace else isinstance(exc, RETRIED_ON)
            if retry and attempt == 1 and closed:
                retried[kind] = retried.get(kind, 0) + 1
                continue
            raise Failed(kind) from exc
    raise AssertionError("unreachable: the second attempt returns or raises")
