"""How the app answers when something goes wrong: always the one error JSON, never a 500.

Every :class:`~lagassign.errors.LagassignError` becomes its ``body()`` with its
status, request validation errors a 422, unknown routes a 404, all in the one
error shape; anything unexpected is logged and answered 503 ``unavailable``
without a traceback. A failure of ``POST /assign`` is counted in the metrics; a
client that disconnects mid-request is logged at DEBUG and not counted.

A panic in the compiled extension (``lagassign._native``) reaches Python as pyo3's
``PanicException``, a ``BaseException`` (so that ``except Exception`` does not
swallow it by accident): the catch-all takes it too, by name, and answers 503 like
any unexpected error. Every other ``BaseException`` (cancellation, exit) goes on.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lagassign.assign.request import field_path
from lagassign.errors import LagassignError, Unauthorized, Unavailable
from lagassign.http import assign
from lagassign.http.sidecar import Sidecar

log = logging.getLogger(__name__)

HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


def count_failure(app: FastAPI, code: str) -> None:
    """Count a refused ``POST /assign`` (not before the lifespan has built the metrics)."""
    sidecar = getattr(app.state, "sidecar", None)
    if isinstance(sidecar, Sidecar):
        sidecar.metrics.assign.observe_failure(code)


def error_response(
    request: Request, exc: LagassignError, headers: dict[str, str] | None = None
) -> JSONResponse:
    if request.url.path == assign.PATH:
        count_failure(request.app, exc.code)
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


async def lagassign_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LagassignError)
    headers = {"WWW-Authenticate": "Bearer"} if isinstance(exc, Unauthorized) else None
    retry_after = getattr(exc, "retry_after_s", None)
    if isinstance(retry_after, int):
        headers = {"Retry-After": str(retry_after)}
    return error_response(request, exc, headers)


async def validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    details = [
        {"field": field_path(tuple(e.get("loc", ()))), "problem": e.get("msg", "invalid")}
        for e in list(exc.errors())[:20]
    ]
    first = details[0] if details else {"field": "request", "problem": "invalid"}
    error = LagassignError(f"{first['field']}: {first['problem']}", details)
    error.code, error.status = "invalid_request", 422
    return error_response(request, error)


async def http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    error = LagassignError(str(exc.detail))
    error.code = HTTP_CODES.get(exc.status_code, "http_error")
    error.status = exc.status_code
    return error_response(request, error, dict(exc.headers or {}))


def is_panic(exc: BaseException) -> bool:
    """Whether ``exc`` is a Rust panic raised through pyo3 (``pyo3_runtime.PanicException``)."""
    kind = type(exc)
    return kind.__name__ == "PanicException" and kind.__module__ == "pyo3_runtime"


class UnexpectedErrors:
    """Pure ASGI middleware: an unexpected exception becomes a logged 503, never a 500."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_tracking(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, send_tracking)
        except ClientDisconnect:
            # The client went away mid-request: nobody to answer, and not a failure.
            log.debug("client disconnected during %s %s", scope["method"], scope["path"])
        except BaseException as exc:  # the one place that turns the unknown into a 503
            if not isinstance(exc, Exception) and not is_panic(exc):
                raise
            log.exception("unexpected error answering %s %s", scope["method"], scope["path"])
            if started:
                return
            error = Unavailable("the service could not answer this request; see its log")
            if scope["path"] == assign.PATH:
                count_failure(scope["app"], error.code)
            response = JSONResponse(error.body(), status_code=error.status)
            await response(scope, receive, send)
