"""``POST /assign``: one rebalance in, one assignment out (``docs/http-api.md``).

The fast path: the raw body is read once (bounded by ``LAGASSIGN_MAX_BODY_BYTES``),
parsed by pydantic's JSON parser straight into the wire model, and the answer is
encoded with the standard library's C JSON encoder into a plain ``Response``
(no ``jsonable_encoder`` walk over a 100,000-partition answer). Large requests
are parsed, computed and encoded in a worker thread, so the event loop keeps
serving ``/livez``, ``/metrics`` and the lag refresh meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Depends, Request, Response

from lagassign.assign.answer import Answer, compute_answer
from lagassign.assign.lag_sources import LagSource, choose_lag_source, subscribed_topics
from lagassign.assign.request import AssignRequest, parse_assign_request
from lagassign.errors import TooLarge
from lagassign.http.auth import require_token
from lagassign.http.parts import AnswersDep, ForecastDep, LagViewDep, MetricsDep, SettingsDep
from lagassign.http.schemas import AssignResponse
from lagassign.settings import Settings

PATH = "/assign"

# Past these sizes, parsing and computing leave the event loop for a worker thread.
THREAD_BODY_BYTES = 64 * 1024
THREAD_PARTITIONS = 5_000
# Past this many members, the answer is encoded member by member.
PIECE_MEMBERS = 100

T = TypeVar("T")

router = APIRouter()


@router.post(
    PATH,
    dependencies=[Depends(require_token)],
    summary="Compute the assignment of one rebalance",
    response_model=AssignResponse,
    responses={
        400: {"description": "The request is malformed or contradicts itself (error JSON)."},
        401: {"description": "A bearer token is configured and the request lacks it."},
        413: {"description": "The request is over the configured limits."},
        503: {"description": "The service cannot answer at all."},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/AssignRequest"}}
            },
        }
    },
)
async def assign(
    request: Request,
    settings: SettingsDep,
    lag_view: LagViewDep,
    forecast: ForecastDep,
    answers: AnswersDep,
    metrics: MetricsDep,
) -> Response:
    started = time.perf_counter()
    raw = await read_body(request, settings.max_body_bytes)
    parsed = await off_loop(len(raw) > THREAD_BODY_BYTES, parse_assign_request, raw)
    check_limits(parsed, settings)
    lag = await choose_lag_source(parsed, lag_view, forecast, settings.on_demand_budget_s)
    big = partition_total(parsed) > THREAD_PARTITIONS
    answer, body = await off_loop(big, answer_and_body, parsed, lag, settings.default_strategy)
    if lag_view is not None:
        lag_view.track(parsed.group_id, subscribed_topics(parsed))
    answers.record(answer)
    metrics.assign.observe_answer(answer, time.perf_counter() - started)
    return Response(body, media_type="application/json")


def answer_and_body(
    request: AssignRequest, lag: LagSource, default_strategy: str
) -> tuple[Answer, bytes]:
    answer = compute_answer(request, lag, default_strategy)
    return answer, encode_answer(answer.to_json(), in_pieces=answer.stats.members > PIECE_MEMBERS)


def encode_answer(payload: dict[str, Any], *, in_pieces: bool) -> bytes:
    """The response JSON; a large assignment is encoded one member at a time.

    Encoding member by member costs the same as one ``json.dumps`` call but
    gives the event loop a chance to run between members (one C call over a
    100,000-partition answer would hold the interpreter for its whole length).
    """
    if not in_pieces:
        return json.dumps(payload, separators=(",", ":")).encode()
    encode = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
    members = ",".join(
        f"{encode(member)}:{encode(topics)}" for member, topics in payload["assignment"].items()
    )
    fields = [
        f"{encode(key)}:{{{members}}}" if key == "assignment" else f"{encode(key)}:{encode(value)}"
        for key, value in payload.items()
    ]
    return ("{" + ",".join(fields) + "}").encode()


async def off_loop(in_thread: bool, function: Callable[..., T], *args: Any) -> T:
    """Run ``function`` here, or in a worker thread when the work is large."""
    if in_thread:
        return await asyncio.to_thread(function, *args)
    return function(*args)


async def read_body(request: Request, limit: int) -> bytes:
    """The whole body, refused with 413 as soon as it exceeds ``limit`` bytes."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge(
            f"the body has {int(declared)} bytes; the limit is {limit} (LAGASSIGN_MAX_BODY_BYTES)"
        )
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(
                f"the body exceeds the limit of {limit} bytes (LAGASSIGN_MAX_BODY_BYTES)"
            )
        chunks.append(chunk)
    return b"".join(chunks)


def partition_total(request: AssignRequest) -> int:
    return sum(n for n in request.partitions.values() if n > 0)


def check_limits(request: AssignRequest, settings: Settings) -> None:
    """413 for a group over ``LAGASSIGN_MAX_MEMBERS`` or ``LAGASSIGN_MAX_PARTITIONS``."""
    members = len(request.members)
    if members > settings.max_members:
        raise TooLarge(
            f"members: {members} members exceed the limit of {settings.max_members} "
            "(LAGASSIGN_MAX_MEMBERS)"
        )
    partitions = partition_total(request)
    if partitions > settings.max_partitions:
        raise TooLarge(
            f"partitions: {partitions} partitions exceed the limit of "
            f"{settings.max_partitions} (LAGASSIGN_MAX_PARTITIONS)"
        )


def request_components() -> dict[str, Any]:
    """JSON schemas of the request body, as OpenAPI components."""
    schema = AssignRequest.model_json_schema(ref_template="#/components/schemas/{model}")
    components: dict[str, Any] = schema.pop("$defs", {})
    components["AssignRequest"] = schema
    return components
