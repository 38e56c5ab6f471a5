"""``GET /metrics``: Prometheus text from the app's own registry, at exactly that path.

The lag metrics come from a collector that reads the lag view's cached
snapshots, so a scrape never waits on Kafka. The collectors run on the event
loop (so they read the snapshots between two refresh steps); the text is written
in a worker thread, label values shortened and the whole bounded in bytes
(:mod:`lagassign.metrics.exposition`), so no scrape holds the event loop or
grows with the length of the ids it names.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST

from lagassign.http.parts import MetricsDep
from lagassign.metrics.exposition import collect, render

router = APIRouter()


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def prometheus_metrics(metrics: MetricsDep) -> Response:
    metrics.assign.expire_idle()
    families = collect(metrics.registry)
    text = await asyncio.to_thread(render, families)
    return Response(text, media_type=CONTENT_TYPE_LATEST)
