"""``GET /metrics``: Prometheus text from the app's own registry, at exactly that path.

The lag metrics come from a collector that reads the lag view's cached
snapshots, so a scrape never waits on Kafka. The route runs on the event loop
(not in a thread) so it reads the snapshots between two refresh steps.
"""

from __future__ import annotations

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from lagassign.http.parts import MetricsDep

router = APIRouter()


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def prometheus_metrics(metrics: MetricsDep) -> Response:
    metrics.assign.expire_idle()
    return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)
