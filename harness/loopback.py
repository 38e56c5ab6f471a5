"""An HTTP server on 127.0.0.1 in a thread of its own, that can stop and start again.

Tests that stand in for a sidecar (a faulty one, one that answers for a broker
plugin) subclass :class:`LoopbackServer` and give its request handler, a
:class:`JsonHandler`.
"""

from __future__ import annotations

import contextlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class JsonHandler(BaseHTTPRequestHandler):
    """A request handler that answers JSON and logs nothing (the tests read what was
    asked and counted instead)."""

    def send_json(self, status: int, body: bytes) -> None:
        """Answer ``body`` with ``status``; a client that hung up already (a shim past its
        deadline) gets nothing."""
        with contextlib.suppress(OSError):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


class LoopbackServer:
    """Start with :meth:`start`, end with :meth:`stop`; ``url`` is its base URL.

    A stopped server may start again, on the same port; while it is stopped the
    port refuses connections. :attr:`stopping` is set from :meth:`stop` until the
    next :meth:`start` (a handler holding an answer back waits on it).
    """

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self._port = 0
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    def handler_class(self) -> type[JsonHandler]:
        raise NotImplementedError

    def start(self) -> Self:
        """Listen (again) on 127.0.0.1, on the same port as before if it ran already."""
        self.stopping.clear()
        server = ThreadingHTTPServer(("127.0.0.1", self._port), self.handler_class())
        server.daemon_threads = True
        self._port = int(server.server_address[1])
        self._server = server
        threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=type(self).__name__,
            daemon=True,
        ).start()
        return self

    def stop(self) -> None:
        """Stop listening and release any answer held back."""
        self.stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def is_running(self) -> bool:
        return self._server is not None
