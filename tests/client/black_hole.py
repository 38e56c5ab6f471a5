"""A sidecar that accepts connections and never answers: a real socket on 127.0.0.1."""

from __future__ import annotations

import contextlib
import socket
import threading


class BlackHole:
    """Listens, accepts every connection, reads nothing, answers nothing, until :meth:`stop`."""

    def __init__(self) -> None:
        self._server = socket.create_server(("127.0.0.1", 0), backlog=64)
        self._server.settimeout(0.2)
        self._stopping = threading.Event()
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, name="black-hole", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.getsockname()[1]}"

    @property
    def connections(self) -> int:
        return len(self._held)

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._held.append(connection)

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(5.0)
        self._server.close()
        for connection in self._held:
            with contextlib.suppress(OSError):
                connection.close()
