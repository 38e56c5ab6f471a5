"""The ``Host`` allow-list: a request naming any other host gets 400 ``invalid_host``.

A sidecar bound to loopback is still reachable from a browser on the same
machine through DNS rebinding (a page of ``evil.example`` whose name resolves
to 127.0.0.1); the browser then sends ``Host: evil.example``. Only the names in
``LAGASSIGN_ALLOWED_HOSTS`` pass (by default the loopback names; ``*`` allows
any, ``*.example.com`` any subdomain). Starlette's TrustedHostMiddleware does
the same but answers in plain text; this one answers in the service's error shape.
"""

from __future__ import annotations

from collections.abc import Iterable

from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from lagassign.errors import InvalidHost


def host_name(header: str) -> str:
    """``"[::1]:8321"`` -> ``"::1"``, ``"localhost:80"`` -> ``"localhost"``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    if header.count(":") == 1:
        return header.partition(":")[0]
    return header


def host_allowed(name: str, allowed: Iterable[str]) -> bool:
    for pattern in allowed:
        if pattern == "*" or name == pattern:
            return True
        if pattern.startswith("*.") and name.endswith(pattern[1:]):
            return True
    return False


class AllowedHosts:
    """Pure ASGI middleware: refuse HTTP requests whose ``Host`` is not allowed."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        self.allowed = tuple(a.lower() for a in allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or "*" in self.allowed:
            await self.app(scope, receive, send)
            return
        given = Headers(scope=scope).get("host", "")
        if host_allowed(host_name(given), self.allowed):
            await self.app(scope, receive, send)
            return
        error = InvalidHost(
            "the Host header names a host this service does not answer for "
            "(LAGASSIGN_ALLOWED_HOSTS)"
        )
        await JSONResponse(error.body(), status_code=error.status)(scope, receive, send)
