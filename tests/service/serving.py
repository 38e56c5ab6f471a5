"""Serve an app in-process for a test: its lifespan runs, an httpx client talks to it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from fastapi import FastAPI

from lagassign.forecast.source import ForecastSource
from lagassign.http.parts import sidecar_of
from lagassign.lagview.reader import LagReader


@asynccontextmanager
async def served(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=True)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=transport,
            base_url="http://localhost",
            headers={"content-type": "application/json"},
        ) as client,
    ):
        yield client


def lag_view_of(app: FastAPI) -> LagReader:
    """The lag view the app's lifespan built (the app must have one)."""
    view = sidecar_of(app).lag_view
    assert view is not None
    return view


def forecast_of(app: FastAPI) -> ForecastSource:
    """The forecast source the app's lifespan built (the settings must name a weights file)."""
    forecast = sidecar_of(app).forecast
    assert forecast is not None
    return forecast
