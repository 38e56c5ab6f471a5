"""Typed FastAPI dependencies: how a route receives the parts of the sidecar.

A route names what it needs (``settings: SettingsDep``, ``lag_view: LagViewDep``,
...) and FastAPI hands it the part the app's lifespan built
(:class:`~lagassign.http.sidecar.Sidecar`); no route reads ``app.state``.

Every dependency is ``async def``: FastAPI runs a plain ``def`` dependency in its
thread pool, a hand-off per dependency per request that, at a few hundred requests a
second, cost more than the answers themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

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

T = TypeVar("T")


def sidecar_of(app: FastAPI) -> Sidecar:
    """The parts the app's lifespan built; RuntimeError before the lifespan has run."""
    sidecar = getattr(app.state, "sidecar", None)
    if not isinstance(sidecar, Sidecar):
        raise RuntimeError("the app's lifespan has not run: its parts are not built yet")
    return sidecar


async def current_sidecar(request: Request) -> Sidecar:
    return sidecar_of(request.app)


SidecarDep = Annotated[Sidecar, Depends(current_sidecar)]


def sidecar_part(read: Callable[[Sidecar], T]) -> Any:
    """The dependency that hands a route ``read(sidecar)``: one part of the sidecar."""

    async def part(sidecar: SidecarDep) -> T:
        return read(sidecar)

    return Depends(part)


SettingsDep = Annotated[Settings, sidecar_part(lambda s: s.settings)]
LagViewDep = Annotated[LagReader | None, sidecar_part(lambda s: s.lag_view)]
AnswersDep = Annotated[AnswerLog, sidecar_part(lambda s: s.answers)]
MetricsDep = Annotated[ServiceMetrics, sidecar_part(lambda s: s.metrics)]
ForecastDep = Annotated[ForecastSource | None, sidecar_part(lambda s: s.forecast)]
RatesDep = Annotated[RateWindow | None, sidecar_part(lambda s: s.rates)]
AdviceDep = Annotated[AdviceTracker | None, sidecar_part(lambda s: s.advice)]
LagModelDep = Annotated[LagModel | None, sidecar_part(lambda s: s.lag_model)]
CachesDep = Annotated[AssignCaches | None, sidecar_part(lambda s: s.caches)]


async def current_heavy(sidecar: SidecarDep) -> HeavyWork:
    if sidecar.heavy is None:
        raise RuntimeError("the sidecar was built without its bound on heavy work")
    return sidecar.heavy


HeavyDep = Annotated[HeavyWork, Depends(current_heavy)]
