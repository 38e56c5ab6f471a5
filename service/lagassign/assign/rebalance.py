"""Answering one rebalance: from a parsed ``POST /assign`` request to the answer's bytes.

:func:`answer_rebalance` is the whole use case, given the sidecar's parts
(:class:`AssignParts`): a topic-id request (the broker plugin's) is resolved to its
group and topic names from cached state only; the members are checked against the
group the request names; the lag comes from the best source
(:func:`~lagassign.assign.lag_sources.choose_lag_source`) and goes through the
sidecar's lag model; the strategy runs and the answer is encoded in the request's
answer form; the group's topics are tracked by the lag view; and, unless a dry
run, the answer is recorded and observed.

What is heavy (the lag model, the strategy and the encoding) runs through the
caller's :class:`Worker`: the HTTP route's runs it in a worker thread for a large
request, after waiting for its turn. The lag model and the metrics are handed in
(:class:`~lagassign.assign.lag_cache.LagModel`, :class:`AnswerObserver`): their rooms
sit above this one. The lag from the lag view's cached snapshot, after the model, is
kept per group until its inputs change (:mod:`lagassign.assign.lag_cache`), the
group's last answer is served again for the same request over the same lag
(:mod:`lagassign.assign.answer_reuse`), and the broker plugin's groups have their next
join answered ahead (:mod:`lagassign.assign.answer_prepared`).

A request whose client has gone is abandoned by the :class:`Worker` before each heavy
step, and its answer, if already computed, is neither recorded nor observed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from lagassign.assign.answer import Answer, compute_answer
from lagassign.assign.answer_forms import answer_body
from lagassign.assign.answer_log import AnswerLog
from lagassign.assign.answer_prepared import PreparedJoins
from lagassign.assign.answer_reuse import AnswerReuse, Asked
from lagassign.assign.collector import collector_paused
from lagassign.assign.lag_cache import LagCache, LagInputs, LagModel, lag_inputs, snapshot_lag
from lagassign.assign.lag_sources import LagSource, choose_lag_source, subscribed_topics
from lagassign.assign.request import AssignRequest
from lagassign.assign.topic_ids import resolve_topic_ids
from lagassign.forecast.source import ForecastSource
from lagassign.lagview.member_check import check_members
from lagassign.lagview.reader import LagReader

T = TypeVar("T")


class Worker(Protocol):
    """Where heavy work runs: here, or off the event loop once the request has its turn."""

    async def run(self, step: str, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)``, timed as ``step`` (``lag``, ``answer``); the caller's own
        exception instead when the client has gone."""
        ...

    async def check_client(self) -> None:
        """Raise (the caller's own exception) when the client that asked has gone."""
        ...


class AnswerObserver(Protocol):
    """What counts an answer (the service's ``lagassign_assign_*`` metrics)."""

    def observe_answer(self, answer: Answer, seconds: float) -> None: ...


@dataclass(frozen=True, slots=True)
class AssignParts:
    """The parts of the sidecar a rebalance's answer reads and writes."""

    default_strategy: str
    #: How long a request without cached lag may wait for an on-demand read of it.
    on_demand_budget_s: float
    lag_view: LagReader | None
    forecast: ForecastSource | None
    answers: AnswerLog
    observer: AnswerObserver
    lag_model: LagModel | None = None
    lag_cache: LagCache | None = None
    answer_reuse: AnswerReuse | None = None
    prepared_joins: PreparedJoins | None = None


async def answer_rebalance(
    request: AssignRequest,
    parts: AssignParts,
    worker: Worker,
    *,
    started: float,
    dry_run: bool = False,
    raw: bytes | bytearray | None = None,
) -> bytes:
    """The answer's bytes for ``request`` (whose body was ``raw``, if given: it is what an
    answer is reused for); recorded and observed (from ``started``, a
    ``time.perf_counter()``) unless a dry run."""
    lag_view = parts.lag_view
    by_id: Mapping[str, str] | None = None
    budget_s = parts.on_demand_budget_s
    if request.topic_ids:
        # The broker plugin: resolved from cached state only, never an on-demand read.
        index = lag_view.consumer_index if lag_view is not None else None
        named = resolve_topic_ids(request, index)
        request, by_id, budget_s = named.request, named.topic_ids, 0.0
    if lag_view is not None:
        check_members(
            request.group_id, (m.member_id for m in request.members), lag_view.snapshots()
        )
    lag, inputs = await balanced_lag(request, parts, worker, budget_s)
    reuse, asked, found = parts.answer_reuse, None, None
    if reuse is not None and inputs is not None and raw is not None:
        asked = Asked(bytes(raw), request.group_id, by_id, parts.default_strategy)
        found = reuse.get(asked, inputs)
    # Only the broker plugin's groups have their next join answered ahead.
    joins = parts.prepared_joins if by_id is not None else None
    if found is not None:
        answer, body = found
        topics = subscribed_topics(request)
    else:
        answer, body, topics = await worker.run(
            "answer",
            answer_body_topics,
            request,
            lag,
            parts.default_strategy,
            by_id,
            None if joins is None or inputs is None else (joins, inputs),
        )
    if joins is not None:
        joins.asked(request)
    if lag_view is not None:
        lag_view.track(request.group_id, topics)
    # Nobody reads the answer of a client that has gone: it must not become the group's last.
    await worker.check_client()
    if reuse is not None and asked is not None and inputs is not None and found is None:
        reuse.put(asked, inputs, answer, body)
    if not dry_run:
        parts.answers.record(answer)
        parts.observer.observe_answer(answer, time.perf_counter() - started)
    return body


async def balanced_lag(
    request: AssignRequest, parts: AssignParts, worker: Worker, budget_s: float
) -> tuple[LagSource, LagInputs | None]:
    """The lag the answer balances: from its best source through the lag model, or kept
    from an earlier request of the group with the same inputs (``parts.lag_cache``); and
    those inputs when the lag is one the cache keeps."""
    cache, model, lag_view = parts.lag_cache, parts.lag_model, parts.lag_view
    if cache is not None and lag_view is not None and parts.forecast is None:
        inputs = lag_inputs(request, lag_view, model)
        if inputs is not None:
            lag = cache.get(request.group_id, inputs)
            if lag is None:
                lag = await worker.run("lag", snapshot_lag, request, inputs, model)
                cache.put(request.group_id, inputs, lag)
            cache.asked(request, model)
            return lag, inputs
    lag = await choose_lag_source(request, lag_view, parts.forecast, budget_s)
    if model is not None:
        lag = await worker.run("lag", model, lag, request)
    return lag, None


def answer_body_topics(
    request: AssignRequest,
    lag: LagSource,
    default_strategy: str,
    topic_ids: Mapping[str, str] | None = None,
    prepared: tuple[PreparedJoins, LagInputs] | None = None,
) -> tuple[Answer, bytes, frozenset[str]]:
    """:func:`answer_and_body`, or the group's join answered ahead when ``request`` is it
    (``prepared``: the prepared joins and the request's lag inputs, :mod:`.answer_prepared`),
    and the topics the request subscribes to (for the lag view to track), in one call: each
    walks every topic, so neither holds the event loop."""
    answer = None if prepared is None else prepared[0].take(request, prepared[1], default_strategy)
    if answer is None:
        answer, body = answer_and_body(request, lag, default_strategy, topic_ids)
    else:
        with collector_paused():
            body = answer_body(answer, topic_ids)
    return answer, body, subscribed_topics(request)


def answer_and_body(
    request: AssignRequest,
    lag: LagSource,
    default_strategy: str,
    topic_ids: Mapping[str, str] | None = None,
) -> tuple[Answer, bytes]:
    """The answer and its JSON, in the request's answer form; labelled by topic id if asked so."""
    with collector_paused():
        answer = compute_answer(request, lag, default_strategy)
        return answer, answer_body(answer, topic_ids)
