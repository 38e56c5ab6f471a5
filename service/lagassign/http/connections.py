"""uvicorn's HTTP/1.1 protocol: a deadline on request headers, a connection cap, and errors
in the error shape.

uvicorn bounds an idle keep-alive connection (``timeout_keep_alive``) and the
size of incomplete headers (``h11_max_incomplete_event_size``), but not how long
a client may take to send its headers: a client that sends half a request line
and waits would hold its connection for ever. :func:`protocol_with_header_deadline`
gives uvicorn a protocol class that closes a connection whose next request's
headers have not all arrived within the deadline, counted from the connection's
start or from the previous response.

uvicorn answers a request it cannot parse itself, before the app sees it; this
protocol writes that answer as the service's error JSON (400 ``invalid_http``)
instead of uvicorn's plain text.

The connection cap (``LAGASSIGN_MAX_CONNECTIONS``) is the same test as uvicorn's
``limit_concurrency`` (open connections, or requests in progress, past the cap),
but uvicorn answers it with a plain-text 503 and offers no hook for the body. So
``lagassign serve`` leaves ``limit_concurrency`` unset and the protocol wraps the
app it runs for each request in :class:`ConnectionCap`, which answers 503
``too_many_connections`` in the error shape. It reads only the protocol's
``app`` and its server state's ``connections`` and ``tasks`` (uvicorn's own
``limit_concurrency`` reads the same sets), and replaces no uvicorn code.

The health probes are not counted against the cap: ``GET /livez`` and ``GET /readyz``
pass whatever the number of open connections, up to :data:`HEALTH_RESERVE` of them
in progress at once. Otherwise idle sockets, opened by anyone before any token
check, would keep the liveness probe at 503 and get a healthy sidecar restarted.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import h11
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from lagassign.errors import LagassignError, Unavailable

log = logging.getLogger(__name__)


class InvalidHttp(LagassignError, code="invalid_http", status=400): ...


class TooManyConnections(Unavailable, code="too_many_connections"): ...


#: The paths that pass the cap, and how many of their requests may be in progress at once.
HEALTH_PATHS = frozenset({"/livez", "/readyz"})
HEALTH_RESERVE = 8


class ConnectionCap:
    """The ASGI app of one request, or a 503 in the error shape when the server is past its cap.

    Past the cap: more than ``max_connections`` connections open (this one
    included), or more than ``max_connections`` requests in progress (this one
    included). The answer closes the connection, as uvicorn's own 503 does.
    """

    #: Health requests in progress past the cap, over every connection of the server.
    health_in_progress = 0

    def __init__(self, app: ASGIApp, state: ServerState, max_connections: int) -> None:
        self.app = app
        self.state = state
        self.max_connections = max_connections

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        cap = self.max_connections
        if scope["type"] != "http" or (
            len(self.state.connections) <= cap and len(self.state.tasks) <= cap
        ):
            await self.app(scope, receive, send)
            return
        if (
            scope["method"] == "GET"
            and scope["path"] in HEALTH_PATHS
            and ConnectionCap.health_in_progress < HEALTH_RESERVE
        ):
            ConnectionCap.health_in_progress += 1
            try:
                await self.app(scope, receive, send)
            finally:
                ConnectionCap.health_in_progress -= 1
            return
        log.warning("past LAGASSIGN_MAX_CONNECTIONS (%d): answering 503", cap)
        error = TooManyConnections(
            f"the sidecar has more than {cap} connections or requests open; try again later",
            {"max_connections": cap},
        )
        body = json.dumps(error.body()).encode()
        await send(
            {
                "type": "http.response.start",
                "status": error.status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body, "more_body": False})


class HeaderDeadlineProtocol(H11Protocol):
    """H11Protocol that closes connections whose request headers arrive too slowly."""

    header_timeout_s: float = 10.0
    #: ``None``: no cap.
    max_connections: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.max_connections is not None:
            self.app = ConnectionCap(self.app, self.server_state, self.max_connections)
        self._header_deadline: asyncio.TimerHandle | None = None
        self._cycle_at_arming: object = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_deadline()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_header_deadline()

    def _arm_header_deadline(self) -> None:
        self._disarm_header_deadline()
        self._cycle_at_arming = self.cycle
        self._header_deadline = self.loop.call_later(self.header_timeout_s, self._headers_late)

    def _disarm_header_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _headers_late(self) -> None:
        """No new request began since the deadline was armed: close the connection."""
        self._header_deadline = None
        waiting = self.cycle is None or self.cycle.response_complete
        if waiting and self.cycle is self._cycle_at_arming and not self.transport.is_closing():
            self.logger.debug("closing a connection whose request headers came too slowly")
            self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request it cannot parse, in the service's error shape.

        The bytes may turn bad after the app began the request (a malformed chunk of
        a body the app has not read, or refused unread, as the ``Host`` check does).
        Then the app's own answer must not follow this one: its cycle is marked
        disconnected, so uvicorn drops what it sends and its reads end, instead of
        h11 raising (and uvicorn logging a traceback) at a response after the close.
        A response already begun or sent cannot be replaced: the connection is only
        closed.
        """
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True
            cycle.message_event.set()
        if self.conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            self.transport.close()
            return
        error = InvalidHttp(msg.rstrip("."))
        body = json.dumps(error.body()).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        self.transport.write(self.conn.send(h11.Response(status_code=400, headers=headers)))
        self.transport.write(self.conn.send(h11.Data(data=body)))
        self.transport.write(self.conn.send(h11.EndOfMessage()))
        self.transport.close()


def protocol_with_header_deadline(
    header_timeout_s: float, max_connections: int | None = None
) -> type[HeaderDeadlineProtocol]:
    """The protocol class for ``uvicorn.run(http=...)`` with this header deadline and cap
    (run uvicorn without ``limit_concurrency``: the cap is the protocol's)."""
    return type(
        "HeaderDeadlineProtocol",
        (HeaderDeadlineProtocol,),
        {"header_timeout_s": header_timeout_s, "max_connections": max_connections},
    )
