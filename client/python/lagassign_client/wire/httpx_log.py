"""httpx's INFO line for the shim's own requests, left out.

httpx logs every request at INFO on its ``httpx`` logger ("HTTP Request: GET ... 200 OK").
For the shim that is one line per rebalance advice poll (every 5 s) and per rebalance,
which only repeats what the shim says itself. The shim leaves the ``httpx`` logger's
level and the application's logging as they are: it adds one filter to the ``httpx``
logger that drops the line only for a request to a URL the shim made (the sidecar's
``/assign`` and ``/groups/{group}/advice``); the application's own httpx requests are
logged as before.
"""

from __future__ import annotations

import logging
import threading

HTTPX_LOGGER = "httpx"


class _ShimRequests(logging.Filter):
    """Drops httpx's ``HTTP Request: METHOD URL ...`` record for the shim's URLs."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._urls: frozenset[str] = frozenset()

    def add(self, url: str) -> None:
        with self._lock:
            self._urls = self._urls | {url}

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if not isinstance(args, tuple) or len(args) < 2:
            return True
        return str(args[1]) not in self._urls


_FILTER = _ShimRequests()
_INSTALLED = threading.Lock()
_installed = False


def quiet(url: str) -> None:
    """Leave httpx's INFO line out for requests to exactly ``url``."""
    global _installed
    _FILTER.add(url)
    with _INSTALLED:
        if not _installed:
            logging.getLogger(HTTPX_LOGGER).addFilter(_FILTER)
            _installed = True
