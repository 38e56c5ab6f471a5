"""The sidecar's FastAPI application.

:func:`create_app` makes one app from one :class:`~lagassign.settings.Settings`.
Its lifespan builds every part in one place (:func:`~lagassign.http.sidecar.build_sidecar`):
the real lag view of the configured cluster with ``kafka=True`` (what ``lagassign
serve`` runs), the lag view a test passes in (``lag_view=``: a fake, or a real
:class:`~lagassign.lagview.view.LagView` on a test broker), or none at all; then
it starts the lag view and the forecast watcher and stops them at shutdown.
Routes receive the parts through typed dependencies (:mod:`lagassign.http.parts`);
:func:`~lagassign.http.parts.sidecar_of` gives them to a test.

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
from lagassign.assign.request_schema import request_components
from lagassign.errors import LagassignError
from lagassign.http import advice, assign, groups, health
from lagassign.http import metrics as metrics_route
from lagassign.http.errors import UnexpectedErrors, http_error, lagassign_error, validation_error
from lagassign.http.hosts import AllowedHosts
from lagassign.http.sidecar import build_sidecar
from lagassign.lagview.reader import LagReader
from lagassign.settings import Settings


def create_app(
    settings: Settings, *, lag_view: LagReader | None = None, kafka: bool = False
) -> FastAPI:
    """The sidecar app over ``lag_view``, or over the configured cluster when ``kafka``.

    Without either, the app has no lag view: it answers from the request's own
    lags, a forecast, or by count.
    """
    if kafka and lag_view is not None:
        raise ValueError("give a lag_view or kafka=True, not both")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        sidecar = build_sidecar(settings, lag_view=lag_view, kafka=kafka)
        app.state.sidecar = sidecar
        forecast, view = sidecar.forecast, sidecar.lag_view
        watcher: asyncio.Task[None] | None = None
        if forecast is not None:
            await asyncio.to_thread(forecast.reload)
            watcher = asyncio.create_task(
                forecast.watch(settings.refresh_interval_s), name="lagassign-forecast-weights"
            )
        if view is not None:
            await view.start()
        try:
            yield
        finally:
            if watcher is not None:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher
            if view is not None:
                await view.stop()
            if sidecar.warmer is not None:
                await sidecar.warmer.close()

    app = FastAPI(
        title="lagassign",
        version=__version__,
        summary="Lag-aware partition assignment for Kafka consumer groups.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.include_router(assign.router)
    app.include_router(advice.router)
    app.include_router(groups.router)
    app.include_router(metrics_route.router)
    app.include_router(health.router)
    app.add_exception_handler(LagassignError, lagassign_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_middleware(UnexpectedErrors)
    app.add_middleware(AllowedHosts, allowed=settings.hosts_served)
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
                request_components()
            )
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
