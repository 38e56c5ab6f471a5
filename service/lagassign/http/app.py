"""The sidecar's FastAPI application.

:func:`create_app` builds one app from one :class:`~lagassign.settings.Settings`
and an optional lag view (the real :class:`~lagassign.lagview.refresh.LagView`,
a test fake, or ``None`` for no Kafka at all). Its lifespan starts the view (the
Kafka clients and the refresh task) and stops it at shutdown. Long-lived things
reach handlers through ``app.state``:

- ``settings``: the settings;
- ``lag_view``: the lag view or ``None``;
- ``answers``: the :class:`~lagassign.assign.answer_log.AnswerLog` of recent answers;
- ``registry``: the app's own Prometheus registry (``metrics`` holds its instruments);
- ``weights``: the :class:`~lagassign.forecast.source.ForecastSource` or ``None``.

Errors are answered by :mod:`lagassign.http.errors`: no request gets a 500.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from starlette.exceptions import HTTPException

from lagassign import __version__
from lagassign.assign.answer_log import AnswerLog
from lagassign.errors import LagassignError
from lagassign.forecast.source import ForecastSource
from lagassign.http import assign, groups, health
from lagassign.http import metrics as metrics_route
from lagassign.http.errors import UnexpectedErrors, http_error, lagassign_error, validation_error
from lagassign.lagview.reader import LagReader
from lagassign.metrics import ServiceMetrics, service_metrics
from lagassign.settings import Settings


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
