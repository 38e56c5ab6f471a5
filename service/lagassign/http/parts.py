"""Typed FastAPI dependencies: how a route receives the parts of the sidecar.

A route names what it needs (``settings: SettingsDep``, ``lag_view: LagViewDep``,
...) and FastAPI hands it the part the app's lifespan built
(:class:`~lagassign.http.sidecar.Sidecar`); no route reads ``app.state``.

Every dependency is ``async def``: FastAPI runs a plain ``def`` dependency in its
thread pool, a hand-off per dependency per request that, at a few hundred requests a
second, cost more than the answers themselves.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, FastAPI, Request

from lagassign.assign.answer_log import AnswerLog
from lagassign.assign.caches import AssignCaches
from lagassign.assign.lag_cache import LagModel
from lagassign.forecast.source import ForecastSource
from lagassign.groups.advice_tracker import AdviceTracker
from lagassign.http.heavy import HeavyWork
from lagassign.http.sidecar import Sidecar
from lagassign.lagview.reader import LagReader
from lagassign.metrics import ServiceMetrics
from lagassign.rates.window import RateWindow
from lagassign.settings import Settings


def sidecar_of(app: FastAPI) -> Sidecar:
    """The parts the app's lifespan built; RuntimeError before the lifespan has run."""
    sidecar = getattr(app.state, "sidecar", None)
    if not isinstance(sidecar, Sidecar):
        raise RuntimeError("the app's lifespan has not run: its parts are not built yet")
    return sidecar


async def current_sidecar(request: Request) -> Sidecar:
    return sidecar_of(request.app)


SidecarDep = Annotated[Sidecar, Depends(current_sidecar)]


async def current_settings(sidecar: SidecarDep) -> Settings:
    return sidecar.settings


async def current_lag_view(sidecar: SidecarDep) -> LagReader | None:
    return sidecar.lag_view


async def current_answers(sidecar: SidecarDep) -> AnswerLog:
    return sidecar.answers


async def current_metrics(sidecar: SidecarDep) -> ServiceMetrics:
    return sidecar.metrics


async def current_forecast(sidecar: SidecarDep) -> ForecastSource | None:
    return sidecar.forecast


SettingsDep = Annotated[Settings, Depends(current_settings)]
LagViewDep = Annotated[LagReader | None, Depends(current_lag_view)]
AnswersDep = Annotated[AnswerLog, Depends(current_answers)]
MetricsDep = Annotated[ServiceMetrics, Depends(current_metrics)]
ForecastDep = Annotated[ForecastSource | None, Depends(current_forecast)]


async def current_rates(sidecar: SidecarDep) -> RateWindow | None:
    return sidecar.rates


RatesDep = Annotated[RateWindow | None, Depends(current_rates)]


async def current_advice(sidecar: SidecarDep) -> AdviceTracker | None:
    return sidecar.advice


AdviceDep = Annotated[AdviceTracker | None, Depends(current_advice)]


async def current_heavy(sidecar: SidecarDep) -> HeavyWork:
    if sidecar.heavy is None:
        raise RuntimeError("the sidecar was built without its bound on heavy work")
    return sidecar.heavy


HeavyDep = Annotated[HeavyWork, Depends(current_heavy)]


async def current_lag_model(sidecar: SidecarDep) -> LagModel | None:
    return sidecar.lag_model


LagModelDep = Annotated[LagModel | None, Depends(current_lag_model)]


async def current_caches(sidecar: SidecarDep) -> AssignCaches | None:
    return sidecar.caches


CachesDep = Annotated[AssignCaches | None, Depends(current_caches)]
