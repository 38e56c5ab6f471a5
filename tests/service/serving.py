"""Serve an app for a test: in-process (its lifespan runs, an httpx client talks to it), under
a real uvicorn on a port, or as a real ``lagassign serve`` process without a broker."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx
import uvicorn
from fastapi import FastAPI

from harness.poll import eventually_async
from harness.sidecar import SidecarProcess, free_port, start_sidecar
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


@asynccontextmanager
async def served_on_a_port(app: FastAPI, wait_s: float = 30.0) -> AsyncIterator[str]:
    """The app under a real uvicorn on a free 127.0.0.1 port, for a browser or a raw socket.

    Yields its base URL once uvicorn serves (its lifespan has run); stops it at the end.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        serving = asyncio.create_task(server.serve(sockets=[sock]))
        try:
            await eventually_async(lambda: server.started, wait_s, "uvicorn serves")
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
            await asyncio.wait_for(serving, wait_s)


@contextmanager
def served_without_a_broker(settings: Mapping[str, str], log: Path) -> Iterator[SidecarProcess]:
    """``lagassign serve`` with ``settings`` and a bootstrap address no broker listens on.

    Alive (``/livez``) but never ready; it answers ``/assign`` from the requests' own
    lags. Stopped by its pid at the end.
    """
    bootstrap = {"LAGASSIGN_BOOTSTRAP_SERVERS": f"127.0.0.1:{free_port()}"}
    process = start_sidecar({**bootstrap, **settings}, log, wait_until_ready=False)
    try:
        yield process
    finally:
        process.stop()


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
