"""The sidecar's FastAPI application.

:func:`create_app` builds one app from one :class:`~lagassign.settings.Settings`
and an optional lag view (the real :class:`~lagassign.lagview.refresh.LagView`,
a test fake, or ``None`` for no Kafka at all). Its lifespan starts the view (the
Kafka clients and the refresh task) and stops it at shutdown. Long-lived things
reach handlers through ``app.state``:

- ``settings``: the settings;
- ``lag_view``: the lag view or ``None``;
- ``answers``: the :class:`~lagassign.answer_log.AnswerLog` of recent answers;
- ``registry``: the app's own Prometheus registry (``metrics`` holds its instruments);
- ``weights``: the :class:`~lagassign.forecast_source.ForecastSource` or ``None``.

Errors: every :class:`~lagassign.errors.LagassignError` becomes its ``body()``
with its status, request validation errors a 422, unknown routes a 404, all in
the one error shape; anything unexpected is logged and answered 503
``unavailable`` without a traceback. No request gets a 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lagassign import __version__
from lagassign.answer_log import AnswerLog
from lagassign.errors import LagassignError, Unauthorized, Unavailable
from lagassign.forecast_source import ForecastSource
from lagassign.http import assign, groups, health
from lagassign.http import metrics as metrics_route
from lagassign.lag_reader import LagReader
from lagassign.metrics import ServiceMetrics, service_metrics
from lagassign.schemas import field_path
from lagassign.settings import Settings

log = logging.getLogger(__name__)

HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


def create_app(
    settings: Settings,
    *,
    lag_view: LagReader | None = None,
    metrics: ServiceMetrics | None = None,
) -> FastAPI:
    """The sidecar app; the lifespan starts and stops ``lag_view`` when one is given.

    ``metrics`` is given when the lag view must feed them (its refresh observer);
    the caller then has registered the view's collector. Otherwise they are made here.
    """

    forecast = ForecastSource.from_settings(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        watcher: asyncio.Task[None] | None = None
        if forecast is not None:
            await asyncio.to_thread(forecast.reload)
            watcher = asyncio.create_task(
                forecast.watch(settings.refresh_interval_s), name="lagassign-forecast-weights"
            )
        if lag_view is not None:
            await lag_view.start()
        try:
            yield
        finally:
            if watcher is not None:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher
            if lag_view is not None:
                await lag_view.stop()

    app = FastAPI(
        title="lagassign",
        version=__version__,
        summary="Lag-aware partition assignment for Kafka consumer groups.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    service = metrics
    if service is None:
        service = service_metrics(partition_metrics=settings.partition_metrics)
        if lag_view is not None:
            service.collect_lag_of(lag_view)
    app.state.settings = settings
    app.state.lag_view = lag_view
    app.state.answers = AnswerLog()
    app.state.registry = service.registry
    app.state.metrics = service
    app.state.weights = forecast

    app.include_router(assign.router)
    app.include_router(groups.router)
    app.include_router(metrics_route.router)
    app.include_router(health.router)
    app.add_exception_handler(LagassignError, lagassign_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_middleware(UnexpectedErrors)
    install_openapi(app)
    return app


def error_response(
    request: Request, exc: LagassignError, headers: dict[str, str] | None = None
) -> JSONResponse:
    if request.url.path == assign.PATH:
        request.app.state.metrics.assign.observe_failure(exc.code)
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


async def lagassign_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LagassignError)
    headers = {"WWW-Authenticate": "Bearer"} if isinstance(exc, Unauthorized) else None
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
        except Exception:  # the one place that turns the unknown into a 503
            log.exception("unexpected error answering %s %s", scope["method"], scope["path"])
            if started:
                return
            error = Unavailable("the service could not answer this request; see its log")
            if scope["path"] == assign.PATH:
                scope["app"].state.metrics.assign.observe_failure(error.code)
            response = JSONResponse(error.body(), status_code=error.status)
            await response(scope, receive, send)


def install_openapi(app: FastAPI) -> None:
    """The OpenAPI document, with the ``POST /assign`` body that the route parses itself."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title, version=app.version, summary=app.summary, routes=app.routes
            )
            schema.setdefault("components", {}).setdefault("schemas", {}).update(
                assign.request_components()
            )
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
