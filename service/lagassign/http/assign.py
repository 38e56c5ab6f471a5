"""``POST /assign``: one rebalance in, one assignment out (``docs/http-api.md``).

The route reads the raw body once (bounded by ``LAGASSIGN_MAX_BODY_BYTES``), parses
it (msgspec, straight into the request's values: :mod:`lagassign.assign.request`),
hands it to the use case (:func:`lagassign.assign.rebalance.answer_rebalance`) and
answers its bytes as a plain ``Response`` (encoded by msgspec in the form the request
asks, ``answer_form``: no ``jsonable_encoder`` walk over a million-partition answer).
Large requests are parsed, computed and encoded in a worker thread, so the event loop
keeps serving ``/livez``, ``/metrics`` and the lag refresh meanwhile. What is
large is the request's cost estimate (members x topics, owned lists, racks, lags and
partitions: :func:`~lagassign.assign.request.request_cost`), not its partition count
alone, and at most ``LAGASSIGN_MAX_HEAVY_REQUESTS`` large ones run at once
(:mod:`lagassign.http.heavy`). A large body's counts are checked before it is decoded
(:mod:`lagassign.assign.request_counts`).

A client that goes away is not worked for: once its body is read, its connection is
watched; a wait for a turn ends when it closes, no further heavy step starts, and an
answer computed meanwhile is not recorded (Starlette's ``ClientDisconnect``, logged at
DEBUG; :mod:`lagassign.http.turn`). The lag an answer balances is kept per group
between two refreshes of the lag view (:mod:`lagassign.assign.lag_cache`) and made
ready anew after each refresh by a listener of the view
(:mod:`lagassign.assign.lag_warmer`); a group's last answer is served again for the
same body over the same lag (:mod:`lagassign.assign.answer_reuse`). Both are built with
the lag view (:mod:`lagassign.http.sidecar`), as is the lag model
(:mod:`lagassign.rates.lag_models`).

``POST /assign?dry_run=true`` answers the same way but records nothing: the answer
does not become the group's last answer (so ``/groups`` and
``lagassign_live_assignment_matches`` keep comparing the live assignment with the
last real one) and no answer metric moves. For hand-made requests and what-ifs.
"""

from __future__ import annotations

import asyncio
import time

from fastapi import APIRouter, Depends, Request, Response

from lagassign.assign.collector import request_paused
from lagassign.assign.rebalance import AssignParts, answer_rebalance
from lagassign.assign.request import (
    AssignRequest,
    check_request_limits,
    parse_assign_request,
    request_cost,
)
from lagassign.errors import BadRequest, RequestTimeout, TooLarge, UnsupportedMediaType
from lagassign.http.auth import require_token
from lagassign.http.heavy import LIGHT_BODY_BYTES, LIGHT_COST
from lagassign.http.parts import (
    AnswersDep,
    CachesDep,
    ForecastDep,
    HeavyDep,
    LagModelDep,
    LagViewDep,
    MetricsDep,
    SettingsDep,
)
from lagassign.http.schemas import AssignResponse, PackedAssignResponse, error_responses
from lagassign.http.turn import Turn
from lagassign.limits import RequestLimits

PATH = "/assign"

router = APIRouter()


@router.post(
    PATH,
    dependencies=[Depends(require_token)],
    summary="Compute the assignment of one rebalance",
    response_model=AssignResponse | PackedAssignResponse,
    responses=error_responses(
        {
            400: "The request is malformed or contradicts itself, or its members are "
            "members of another group than the one it names (wrong_group).",
            401: "A bearer token is configured and the request lacks it.",
            404: "Topic-id form: none of the members (unknown_group) or a topic id "
            "(unknown_topic) is known yet.",
            408: "The body did not arrive within LAGASSIGN_BODY_TIMEOUT_S.",
            409: "Topic-id form: the members belong to several groups.",
            413: "The request is over the configured limits.",
            415: "The body is not declared application/json, is declared in another "
            "charset than UTF-8, or is compressed (Content-Encoding).",
            503: "The service cannot answer at all, or (busy, with Retry-After) no turn "
            "for a heavy request came within LAGASSIGN_HEAVY_WAIT_S.",
        }
    ),
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
    heavy: HeavyDep,
    lag_model: LagModelDep,
    caches: CachesDep,
) -> Response:
    started = time.perf_counter()
    require_json(request)
    dry_run = dry_run_of(request)
    parts = AssignParts(
        default_strategy=settings.default_strategy,
        on_demand_budget_s=settings.on_demand_budget_s,
        lag_view=lag_view,
        forecast=forecast,
        answers=answers,
        observer=metrics.assign,
        lag_model=lag_model,
        lag_cache=None if caches is None else caches.lags,
        answer_reuse=None if caches is None else caches.answers,
        prepared_joins=None if caches is None else caches.joins,
    )
    turn = Turn(heavy)
    try:
        # A large body takes its turn before it is read in full: the bodies held at
        # once are bounded by the turns, not by the connections.
        began, waited = time.perf_counter(), turn.steps.seconds("turn")
        raw = await read_body(request, settings.max_body_bytes, settings.body_timeout_s, turn)
        # A wait for the turn while the body arrived is the turn's, not the read's.
        turn.steps.add("read", began + turn.steps.seconds("turn") - waited)
        turn.watch(request)
        async with request_paused(len(raw) > LIGHT_BODY_BYTES):
            parsed, cost = await turn.run("parse", checked_request, raw, settings.request_limits)
            turn.wanted = cost > LIGHT_COST
            body = await answer_rebalance(
                parsed, parts, turn, started=started, dry_run=dry_run, raw=raw
            )
    finally:
        turn.release()
    return Response(
        body,
        media_type="application/json",
        headers={"Server-Timing": turn.steps.header(started)},
    )


def dry_run_of(request: Request) -> bool:
    """``?dry_run=true`` (or ``1``); anything but true/false/1/0 is refused, never taken as real."""
    value = request.query_params.get("dry_run")
    if value is None:
        return False
    word = value.strip().lower()
    if word in ("true", "1"):
        return True
    if word in ("false", "0"):
        return False
    raise BadRequest(f"dry_run must be true or false, not {value!r}")


def checked_request(raw: bytearray, limits: RequestLimits) -> tuple[AssignRequest, int]:
    """The request of ``raw`` within ``limits`` (400, 413 otherwise), and its cost."""
    parsed = parse_assign_request(raw, limits)
    check_request_limits(parsed, limits)
    return parsed, request_cost(parsed)


def require_json(request: Request) -> None:
    """415 unless the body is declared ``application/json``, UTF-8 and uncompressed.

    JSON is UTF-8 (RFC 8259); a body declared in another charset or with a
    ``Content-Encoding`` would otherwise be misread as UTF-8 JSON, so it is refused.

    A browser may send a cross-origin ``text/plain`` POST without asking first;
    requiring JSON makes any cross-origin POST need a CORS preflight, which this
    service never grants.
    """
    media_type, _, parameters = request.headers.get("content-type", "").partition(";")
    media_type = media_type.strip().lower()
    if media_type != "application/json":
        raise UnsupportedMediaType(
            f"the body must be application/json, not {media_type or 'undeclared'}"
        )
    charset = declared_charset(parameters)
    if charset not in (None, "utf-8", "utf8"):
        raise UnsupportedMediaType(f"the body must be UTF-8 JSON, not charset={charset}")
    encoding = request.headers.get("content-encoding", "").strip().lower()
    if encoding not in ("", "identity"):
        raise UnsupportedMediaType(
            f"the body must not be compressed (Content-Encoding: {encoding[:64]})"
        )


def declared_charset(parameters: str) -> str | None:
    """The ``charset`` of a Content-Type's parameters (``; charset="UTF-8"`` -> ``utf-8``)."""
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip('"').lower()[:64]
    return None


async def read_body(
    request: Request, limit: int, timeout_s: float, turn: Turn | None = None
) -> bytearray:
    """The whole body, refused with 413 as soon as it exceeds ``limit`` bytes.

    A body still arriving after ``timeout_s`` is refused with 408. A client that
    goes away mid-body raises Starlette's ClientDisconnect, which
    :class:`~lagassign.http.errors.UnexpectedErrors` logs at DEBUG. With a ``turn``,
    a body past ``LIGHT_BODY_BYTES`` (declared, or as it arrives) takes it before it
    is read further; the wait for it does not count against ``timeout_s``.
    """
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge(
            f"the body has {int(declared)} bytes; the limit is {limit} (LAGASSIGN_MAX_BODY_BYTES)"
        )
    if turn is not None and declared.isdigit() and int(declared) > LIGHT_BODY_BYTES:
        await turn.take()
    # One buffer grown in place: the body is held once, not as chunks and their join.
    body = bytearray()
    try:
        async with asyncio.timeout(timeout_s) as deadline:
            async for chunk in request.stream():
                if len(body) + len(chunk) > limit:
                    raise TooLarge(
                        f"the body exceeds the limit of {limit} bytes (LAGASSIGN_MAX_BODY_BYTES)"
                    )
                if turn is not None and not turn.held and len(body) + len(chunk) > LIGHT_BODY_BYTES:
                    waited = time.monotonic()
                    await turn.take()
                    when = deadline.when()
                    if when is not None:
                        deadline.reschedule(when + time.monotonic() - waited)
                body += chunk
    except TimeoutError:
        raise RequestTimeout(
            f"the body did not arrive within {timeout_s:g} s (LAGASSIGN_BODY_TIMEOUT_S)"
        ) from None
    return body
