"""``/livez`` and ``/readyz`` (``docs/http-api.md``).

- ``/livez``: the process answers HTTP; it never touches Kafka.
- ``/readyz``: 200 once the lag view has loaded its first snapshot and Kafka
  answered a refresh within the last :data:`READY_REFRESHES` refresh intervals
  (plus one Kafka request timeout); otherwise 503 ``unavailable`` with the
  reason. Without a lag view (no Kafka configured) the service is ready: it
  answers from the request's own lags or by count.

Worked example: interval 10 s, Kafka timeout 5 s. The last good refresh was
20 s ago -> ready; 40 s ago -> 503 "Kafka has not answered a lag refresh for 40 s".
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter

from lagassign.errors import Unavailable
from lagassign.http.parts import LagViewDep, SettingsDep
from lagassign.lagview.reader import LagReader
from lagassign.settings import Settings

READY_REFRESHES = 3

router = APIRouter()


@router.get("/livez", summary="Liveness: the process answers")
async def livez() -> dict[str, str]:
    return {"status": "alive"}


@router.get(
    "/readyz",
    summary="Readiness: the lag view has loaded and Kafka answers",
    responses={503: {"description": "Not ready; the error JSON says why."}},
)
async def readyz(settings: SettingsDep, lag_view: LagViewDep) -> dict[str, Any]:
    problem = readiness_problem(lag_view, settings, datetime.now(UTC))
    if problem is not None:
        raise Unavailable(problem, {"last_refresh_error": last_error(lag_view)})
    return {"status": "ready", "lag_view": "off" if lag_view is None else "on"}


def readiness_problem(lag_view: LagReader | None, settings: Settings, now: datetime) -> str | None:
    """Why the service is not ready, or None when it is."""
    if lag_view is None:
        return None
    if not lag_view.first_snapshot_loaded:
        return "the lag view has not loaded its first snapshot yet"
    last_ok = lag_view.last_refresh_ok
    window_s = READY_REFRESHES * settings.refresh_interval_s + settings.kafka_timeout_ms / 1000
    if last_ok is None:
        return "Kafka has not answered a lag refresh yet"
    silent_s = (now - last_ok).total_seconds()
    if silent_s > window_s:
        return f"Kafka has not answered a lag refresh for {silent_s:.0f} s (limit {window_s:.0f} s)"
    return None


def last_error(lag_view: LagReader | None) -> str | None:
    return None if lag_view is None else lag_view.last_refresh_error
