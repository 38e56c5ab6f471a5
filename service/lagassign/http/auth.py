"""Bearer-token check for ``/assign`` and ``/groups`` when ``LAGASSIGN_TOKEN`` is set."""

from __future__ import annotations

import hmac

from fastapi import Request

from lagassign.errors import Unauthorized
from lagassign.http.parts import SettingsDep


async def require_token(request: Request, settings: SettingsDep) -> None:
    """FastAPI dependency: pass when no token is configured or the bearer token matches."""
    token = settings.token
    if token is None:
        return
    expected = token.get_secret_value().encode()
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    # Compared as bytes: a header is latin-1 text, so any byte in it encodes back.
    given_bytes = given.strip().encode("latin-1")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given_bytes, expected):
        raise Unauthorized("a valid bearer token is required (Authorization: Bearer ...)")
