"""``GET /groups`` and ``GET /groups/{group_id}``: the tracked groups, JSON or HTML.

JSON by default; the HTML page (:mod:`lagassign.groups.page`) when the
``Accept`` header ranks ``text/html`` above ``application/json``, as a browser's
does. Both read the lag view's cached snapshots and the answer log only: they
never wait on Kafka. The report itself is :mod:`lagassign.groups.report`.

The routes read the view and the log on the event loop (between two refresh
steps, like the metrics collector), then build and render the report in the
thread pool, so the what-if run of the default strategy on a large group does not
hold up the event loop that answers ``POST /assign``.

``GET /groups`` is bounded in bytes: the group ids it lists hold at most
:data:`LIST_ID_BYTES` UTF-8 bytes in all (a group id may be 32,767 characters, and
1,000 such ids made 33 MB of JSON and 96 MB of HTML). The shortest ids are listed
first, so only absurdly long ones are left out; the header ``Lagassign-Groups-Omitted``
then says how many, and ``GET /groups/{group_id}`` still shows each of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from lagassign.errors import UnknownGroup
from lagassign.groups.live_assignment import live_assignment
from lagassign.groups.page import TEMPLATES, render_group
from lagassign.groups.rates import NO_RATES, group_rates
from lagassign.groups.report import GroupSummary, group_report, group_summary
from lagassign.history.recorder import recorder_of
from lagassign.http.auth import require_token
from lagassign.http.parts import (
    AdviceDep,
    AnswersDep,
    ForecastDep,
    LagViewDep,
    MetricsDep,
    RatesDep,
    SettingsDep,
)
from lagassign.http.schemas import WireModel, error_responses
from lagassign.http.schemas_group import GroupOut
from lagassign.http.schemas_groups import (
    ForecastWeightsOut,
    GroupsOut,
    GroupSummaryOut,
    HistoryOut,
    LagViewOut,
)
from lagassign.lagview.reader import LagReader
from lagassign.settings import Settings

# A snapshot older than this many refresh intervals counts as stale.
STALE_AFTER_INTERVALS = 3
#: The UTF-8 bytes of group ids one ``GET /groups`` lists at most.
LIST_ID_BYTES = 1024 * 1024
OMITTED_HEADER = "Lagassign-Groups-Omitted"

router = APIRouter(tags=["groups"], dependencies=[Depends(require_token)])

ERRORS = error_responses(
    {
        401: "A token is configured and the bearer token is missing or wrong",
        422: "A path or query parameter is invalid",
    }
)


def ok(model: type[WireModel], description: str) -> dict[int | str, dict[str, Any]]:
    """The 200 answer: the model as JSON, or the page as HTML for a browser."""
    return {200: {"model": model, "description": description, "content": {"text/html": {}}}}


@router.get(
    "/groups",
    response_class=JSONResponse,
    responses={**ok(GroupsOut, "The tracked groups (JSON, or HTML for a browser)"), **ERRORS},
)
async def list_groups(
    request: Request,
    settings: SettingsDep,
    view: LagViewDep,
    answers: AnswersDep,
    forecast: ForecastDep,
    metrics: MetricsDep,
) -> Response:
    """Every tracked group with its freshness and summary, and the forecast weights' state."""
    snapshots = dict(view.snapshots()) if view is not None else {}
    group_ids, omitted = within_budget(set(snapshots) | set(answers.groups()), LIST_ID_BYTES)
    last = {group_id: answers.last(group_id) for group_id in group_ids}
    seen = {group_id: metrics.assignments.seen(group_id) for group_id in group_ids}
    health = LagViewOut.of(view)
    weights = ForecastWeightsOut.of(forecast.state()) if forecast is not None else None
    recorder = recorder_of(view)
    history = (
        HistoryOut.of(str(settings.history_dir), recorder.state())
        if recorder is not None and settings.history_dir is not None
        else None
    )
    now = datetime.now(UTC)
    stale_after = stale_after_s(settings)
    refresh_error = outage(view)
    as_html = prefers_html(request.headers.get("accept"))

    def respond() -> Response:
        summaries = [
            group_summary(
                group_id,
                snapshots.get(group_id),
                last[group_id],
                now=now,
                stale_after_s=stale_after,
                refresh_error=refresh_error,
                assignments_seen=seen[group_id],
            )
            for group_id in group_ids
        ]
        if as_html:
            response: Response = html(render_group_list(summaries, health, weights, history))
        else:
            body = GroupsOut(
                groups=[GroupSummaryOut.of(s) for s in summaries],
                lag_view=health,
                forecast_weights=weights,
                history=history,
            )
            response = json_body(body)
        if omitted:
            response.headers[OMITTED_HEADER] = str(omitted)
        return response

    return await run_in_threadpool(respond)


def render_group_list(
    summaries: Sequence[GroupSummary],
    lag_view: LagViewOut,
    weights: ForecastWeightsOut | None,
    history: HistoryOut | None,
) -> str:
    """The ``GET /groups`` page: one row per tracked group, under the ``lag_view``,
    ``forecast_weights`` and ``history`` objects of the JSON answer (``weights`` ``None``
    without a weights file, ``history`` ``None`` without a history directory)."""
    template = TEMPLATES.get_template("groups.html")
    return template.render(summaries=summaries, lag_view=lag_view, weights=weights, history=history)


def within_budget(group_ids: set[str], budget: int) -> tuple[list[str], int]:
    """The ids to list (sorted), shortest first while their UTF-8 bytes fit ``budget``,
    and how many are left out."""
    listed: list[str] = []
    used = 0
    for group_id in sorted(group_ids, key=lambda g: (len(g), g)):
        size = len(group_id.encode("utf-8", "surrogatepass"))
        if used + size > budget:
            break
        listed.append(group_id)
        used += size
    return sorted(listed), len(group_ids) - len(listed)


@router.get(
    "/groups/{group_id:path}",
    response_class=JSONResponse,
    responses={
        **ok(GroupOut, "The group (JSON, or HTML for a browser)"),
        **ERRORS,
        **error_responses({404: "The group is neither tracked nor answered"}),
    },
)
async def get_group(
    group_id: str,
    request: Request,
    settings: SettingsDep,
    view: LagViewDep,
    answers: AnswersDep,
    window: RatesDep,
    tracker: AdviceDep,
    metrics: MetricsDep,
) -> Response:
    """One group: freshness, header, rates, partitions, members, skew, last answers, advice."""
    snapshot = view.snapshot(group_id) if view is not None else None
    # Read on the event loop, where the refresh loop feeds the window.
    rates = (
        group_rates(snapshot, window, live_assignment(snapshot))
        if snapshot is not None and window is not None
        else NO_RATES
    )
    recent = answers.recent(group_id)
    if snapshot is None and not recent:
        raise UnknownGroup(f"group {group_id!r} is not tracked", {"group_id": group_id})
    default_strategy = settings.default_strategy
    now = datetime.now(UTC)
    stale_after = stale_after_s(settings)
    refresh_error = outage(view)
    as_html = prefers_html(request.headers.get("accept"))
    advice = tracker.advice_of(group_id) if tracker is not None else None
    seen = metrics.assignments.seen(group_id)

    def respond() -> Response:
        report = group_report(
            group_id,
            snapshot,
            recent,
            default_strategy=default_strategy,
            now=now,
            stale_after_s=stale_after,
            refresh_error=refresh_error,
            rates=rates,
            assignments_seen=seen,
        )
        if as_html:
            return html(render_group(report, advice))
        return json_body(GroupOut.of(report, advice))

    return await run_in_threadpool(respond)


def stale_after_s(settings: Settings) -> float:
    return STALE_AFTER_INTERVALS * float(settings.refresh_interval_s)


def outage(view: LagReader | None) -> str | None:
    """The view's last refresh error when Kafka is down (it then concerns every group).

    A failure of one group is on that group's own snapshot (``error``).
    """
    if view is None or view.kafka_up:
        return None
    return view.last_refresh_error


# The page is plain server-rendered HTML with one inline style sheet: no script,
# no image, no form, no frame may load or act from it.
HTML_HEADERS = {
    "Vary": "Accept",
    "Cache-Control": "no-store",
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def json_body(body: WireModel) -> Response:
    """The model as the JSON answer: what ``/openapi.json`` says is what is sent."""
    headers = {"Vary": "Accept"}
    return Response(body.model_dump_json(), media_type="application/json", headers=headers)


def html(text: str) -> HTMLResponse:
    return HTMLResponse(text, headers=HTML_HEADERS)


def prefers_html(accept: str | None) -> bool:
    """True when ``accept`` ranks ``text/html`` strictly above ``application/json``.

    Each type takes the quality of the most specific range that matches it
    (``text/html`` over ``text/*`` over ``*/*``). A browser's ``text/html,...,
    */*;q=0.8`` gives HTML; ``*/*`` (curl) or no header gives JSON.
    """
    if not accept:
        return False
    ranges = parse_accept(accept)
    return quality(ranges, "text", "html") > quality(ranges, "application", "json")


def parse_accept(accept: str) -> list[tuple[str, str, float]]:
    """``Accept`` -> (type, subtype, q) per media range; malformed ranges are skipped."""
    out: list[tuple[str, str, float]] = []
    for item in accept.split(","):
        media, *params = item.split(";")
        kind, sep, sub = media.strip().lower().partition("/")
        if not sep or not kind or not sub:
            continue
        q = 1.0
        for param in params:
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = min(1.0, max(0.0, float(value)))
                except ValueError:
                    q = 0.0
        out.append((kind, sub.strip(), q))
    return out


def quality(ranges: list[tuple[str, str, float]], kind: str, sub: str) -> float:
    best_specificity, best_q = -1, 0.0
    for r_kind, r_sub, q in ranges:
        if r_kind == kind and r_sub == sub:
            specificity = 2
        elif r_kind == kind and r_sub == "*":
            specificity = 1
        elif r_kind == "*" and r_sub == "*":
            specificity = 0
        else:
            continue
        if specificity > best_specificity:
            best_specificity, best_q = specificity, q
    return best_q
