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
DEBUG). The lag an answer balances is kept per group between two refreshes of the lag
view (:mod:`lagassign.assign.lag_cache`), one cache per lag view, and made ready anew
after each refresh by a listener of the view (:mod:`lagassign.assign.lag_warmer`); a
group's last answer is served again for the same body over the same lag
(:mod:`lagassign.assign.answer_reuse`).

``POST /assign?dry_run=true`` answers the same way but records nothing: the answer
does not become the group's last answer (so ``/groups`` and
``lagassign_live_assignment_matches`` keep comparing the live assignment with the
last real one) and no answer metric moves. For hand-made requests and what-ifs.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fastapi import APIRouter, Depends, Request, Response
from starlette.requests import ClientDisconnect

from lagassign.assign.answer_reuse import AnswerReuse
from lagassign.assign.collector import request_paused
from lagassign.assign.lag_cache import LagCache, LagModel
from lagassign.assign.lag_sources import LagSource
from lagassign.assign.lag_warmer import LagWarmer
from lagassign.assign.rebalance import AssignParts, answer_rebalance
from lagassign.assign.request import (
    AssignRequest,
    check_request_limits,
    parse_assign_request,
    request_cost,
)
from lagassign.errors import BadRequest, RequestTimeout, TooLarge, UnsupportedMediaType
from lagassign.http.auth import require_token
from lagassign.http.heavy import LIGHT_BODY_BYTES, LIGHT_COST, HeavyWork, off_loop
from lagassign.http.parts import (
    AnswersDep,
    ForecastDep,
    HeavyDep,
    LagViewDep,
    MetricsDep,
    RatesDep,
    SettingsDep,
)
from lagassign.http.schemas import AssignResponse, PackedAssignResponse, error_responses
from lagassign.lagview.reader import LagReader
from lagassign.limits import RequestLimits
from lagassign.rates.drain_lags import live_of, with_drain
from lagassign.rates.load import with_load
from lagassign.rates.window import RateWindow
from lagassign.settings import Settings

T = TypeVar("T")

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
    rates: RatesDep,
    heavy: HeavyDep,
) -> Response:
    started = time.perf_counter()
    require_json(request)
    dry_run = dry_run_of(request)
    caches = view_caches(lag_view)
    parts = AssignParts(
        default_strategy=settings.default_strategy,
        on_demand_budget_s=settings.on_demand_budget_s,
        lag_view=lag_view,
        forecast=forecast,
        answers=answers,
        observer=metrics.assign,
        lag_model=lag_model_of(settings, rates, lag_view),
        lag_cache=None if caches is None else caches.lags,
        answer_reuse=None if caches is None else caches.answers,
    )
    turn = Turn(heavy)
    try:
        # A large body takes its turn before it is read in full: the bodies held at
        # once are bounded by the turns, not by the connections.
        raw = await read_body(request, settings.max_body_bytes, settings.body_timeout_s, turn)
        turn.watch(request)
        async with request_paused(len(raw) > LIGHT_BODY_BYTES):
            parsed, cost = await turn.run(checked_request, raw, settings.request_limits)
            turn.wanted = cost > LIGHT_COST
            body = await answer_rebalance(
                parsed, parts, turn, started=started, dry_run=dry_run, raw=raw
            )
    finally:
        turn.release()
    return Response(body, media_type="application/json")


class Turn:
    """One request's turn at heavy work: taken at most once, released once.

    The use case's :class:`~lagassign.assign.rebalance.Worker`: once the turn is
    ``wanted`` (the request is heavy) it is taken before the next piece of work, and
    work runs in a worker thread while it is held. Once :meth:`watch` has started
    (the body is read), a client that closes its connection ends a wait for the turn
    and every later step with ``ClientDisconnect``.
    """

    def __init__(self, heavy: HeavyWork) -> None:
        self.heavy = heavy
        self.held = False
        self.wanted = False
        self.left = asyncio.Event()
        self._watcher: asyncio.Task[None] | None = None

    def watch(self, request: Request) -> None:
        """Watch the connection of ``request``, whose body has been read in full."""
        self._watcher = asyncio.create_task(watch_disconnect(request, self.left))

    async def take(self) -> None:
        if self.held:
            return
        if self._watcher is None:
            await self.heavy.turn()
            self.held = True
            return
        turn = asyncio.ensure_future(self.heavy.turn())
        left = asyncio.ensure_future(self.left.wait())
        try:
            await asyncio.wait((turn, left), return_when=asyncio.FIRST_COMPLETED)
        finally:
            left.cancel()
            if not turn.done():
                turn.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await turn
            # Taken, even as this wait itself was cancelled: release() gives it back.
            self.held = not turn.cancelled() and turn.exception() is None
        if not turn.cancelled():
            turn.result()  # Busy, when no turn came in time
        await self.check_client()

    async def check_client(self) -> None:
        if self.left.is_set():
            raise ClientDisconnect()

    def release(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()
        if self.held:
            self.held = False
            self.heavy.release()

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        await self.check_client()
        if self.wanted:
            await self.take()
        return await off_loop(self.held, function, *args)


async def watch_disconnect(request: Request, left: asyncio.Event) -> None:
    """Set ``left`` when the client closes its connection (nothing else is left to receive)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            left.set()
            return


@dataclass(frozen=True, slots=True)
class ViewCaches:
    """What is kept over one lag view's snapshots: balanced lags, last answers."""

    lags: LagCache = field(default_factory=LagCache)
    answers: AnswerReuse = field(default_factory=AnswerReuse)


#: One set of caches per lag view (its snapshots are what they are keyed by).
_VIEW_CACHES: weakref.WeakKeyDictionary[LagReader, ViewCaches] = weakref.WeakKeyDictionary()


def view_caches(lag_view: LagReader | None) -> ViewCaches | None:
    """The lag view's caches (none without a lag view).

    Made on the first request; a view with refresh listeners (the refresh loop) gets
    the lag cache's :class:`~lagassign.assign.lag_warmer.LagWarmer` as its last, after
    the rate window it reads.
    """
    if lag_view is None:
        return None
    caches = _VIEW_CACHES.get(lag_view)
    if caches is None:
        caches = _VIEW_CACHES[lag_view] = ViewCaches()
        listeners = getattr(lag_view, "listeners", None)
        if isinstance(listeners, list):
            listeners.append(LagWarmer(caches.lags, lag_view))
    return caches


def lag_model_of(
    settings: Settings, rates: RateWindow | None, lag_view: LagReader | None
) -> LagModel | None:
    """The lag model ``LAGASSIGN_LAG_MODEL`` names, over the live rate window (none without)."""
    if rates is None:
        return None
    if settings.lag_model == "load":
        return LoadModel(rates, settings.load_horizon_s)
    if settings.lag_model == "drain" and lag_view is not None:
        return DrainModel(rates, lag_view, settings.member_capacity)
    return None


@dataclass(frozen=True, slots=True)
class LoadModel:
    """``load``: the lag plus each partition's produce rate x a fixed horizon."""

    rates: RateWindow
    horizon_s: float

    def __call__(self, lag: LagSource, request: AssignRequest) -> LagSource:
        return with_load(lag, request.group_id, self.rates, self.horizon_s)

    def inputs(self, group_id: str) -> object:
        return self.rates.group_windows(group_id)


@dataclass(frozen=True, slots=True)
class DrainModel:
    """``drain``: the lag plus each partition's produce rate x the group's catch-up horizon."""

    rates: RateWindow
    lag_view: LagReader
    capacity_setting: float | None

    def __call__(self, lag: LagSource, request: AssignRequest) -> LagSource:
        return with_drain(
            lag,
            request.group_id,
            self.rates,
            live_of(self.lag_view.snapshot(request.group_id)),
            members=len(request.members),
            capacity_setting=self.capacity_setting,
        )

    def inputs(self, group_id: str) -> object:
        return self.rates.group_windows(group_id)


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
