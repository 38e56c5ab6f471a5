"""Where ``POST /assign`` takes its lags from, in order of preference.

1. the request's own ``lags`` (``request``);
2. fresh forecast weights from the pipeline, when configured (``forecast``);
3. the lag view's cached snapshot of the group (``kafka``), when it lists every
   topic the request's members subscribe to;
4. an on-demand read of the group and of the topics it names, bounded by a
   budget (``kafka``); when that fails, the cached snapshot if there is one;
5. nothing: count balance only (``none``), every partition counted unknown.

Lags from the view or the weights are *fitted* to the request's partition
counts, because the leader's metadata is authoritative: partitions beyond the
request's count are dropped, and partitions the view has not seen get lag 0 and
are counted as unknown.

A partition the group has no committed offset on gets the lag the consumer's
reset policy gives: the request's ``reset_policy`` when it says one, else the
group's setting in the view. ``earliest`` is ``end - log start``, ``latest`` is
0, ``none`` is unknown (0, counted as unknown), as is ``earliest`` when the view
does not know both offsets.

Worked example: the view knows ``t0`` partitions 0..3 with lags ``[5, 6, 7, 8]``
and partition 1 of ``t1`` with lag 9; the request says ``t0`` has 3 partitions
and ``t1`` has 2. The fitted lags are ``{"t0": [5, 6, 7], "t1": [0, 9]}`` with
one unknown partition (``t1`` partition 0), so ``complete`` is false.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from lagassign.assign.request import AssignRequest, subscribed_topic_names
from lagassign.forecast.source import ForecastSource
from lagassign.lagview.errors import LagViewError
from lagassign.lagview.reader import LagReader
from lagassign.lagview.rules import ConsumerResetPolicy, lag_without_commit
from lagassign.lagview.snapshot import GroupSnapshot

log = logging.getLogger(__name__)

# How long past its budget an on-demand fetch may run before it is abandoned.
FETCH_GRACE_S = 0.05

# "kafka-load": the lag view's lags plus produce rate x a fixed horizon (lagassign.rates.load);
# "kafka-drain": plus produce rate x the group's catch-up horizon (lagassign.rates.drain).
LagOrigin = Literal["request", "kafka", "kafka-load", "kafka-drain", "forecast", "none"]


@dataclass(frozen=True, slots=True)
class Horizon:
    """The drain model's catch-up horizon (lagassign.rates.drain) at one rebalance."""

    seconds: float
    #: Records/s one member reads (``None``: not known, ``seconds`` is the default).
    capacity: float | None
    #: Where ``capacity`` came from: ``setting``, ``measured`` or ``unknown``.
    capacity_source: str
    #: Whether the inflow reaches what the group can read (it cannot catch up).
    overrun: bool = False


@dataclass(frozen=True, slots=True)
class LagSource:
    """Where the lags of one answer come from, and how fresh and complete they are."""

    source: LagOrigin
    lags: Mapping[str, Sequence[int]] = field(default_factory=dict)
    as_of: datetime | None = None
    complete: bool = True
    unknown_partitions: int = 0
    #: The drain model's catch-up horizon (source ``kafka-drain`` only).
    horizon: Horizon | None = None
    #: Partitions whose produce rate was not known (source ``kafka-drain`` only).
    unknown_rates: int = 0
    #: The lags are drain weights that hold production (some produce rate above 0):
    #: partition counts may yield to them (``Rebalance.flows``).
    flows: bool = False


def no_lag(counts: Mapping[str, int]) -> LagSource:
    """No lag known: every partition of ``counts`` is unknown."""
    return LagSource(source="none", complete=False, unknown_partitions=sum(counts.values()))


def request_lag_source(request: AssignRequest) -> LagSource:
    """The lags a request carries itself, or none."""
    if request.lags is None:
        return no_lag(subscribed_counts(request))
    subscribed = subscribed_topic_names(request)
    return LagSource(source="request", lags=request.lags, complete=subscribed <= set(request.lags))


def subscribed_counts(request: AssignRequest) -> dict[str, int]:
    """Partition count of every topic some member subscribes to (as the request gives it)."""
    topics = subscribed_topic_names(request)
    return {t: n for t, n in request.partitions.items() if t in topics and n >= 0}


def subscribed_topics(request: AssignRequest) -> frozenset[str]:
    """The topics some member subscribes to that have partitions (the topics the request names)."""
    return frozenset(t for t, n in subscribed_counts(request).items() if n > 0)


def fitted_lags(
    snapshot: GroupSnapshot,
    counts: Mapping[str, int],
    reset_policy: ConsumerResetPolicy | None = None,
) -> tuple[dict[str, list[int]], int]:
    """The snapshot's lags cut and filled to ``counts``, and how many partitions were unknown.

    ``reset_policy`` is the consumer's own ``auto.offset.reset`` when the request
    says it; otherwise the group's configured policy applies. It decides the lag
    of every partition without a committed offset, from the log start and end
    offsets the snapshot holds for it. A partition whose lag stays unknown
    (not listed, end offset unknown, ``none``, or ``earliest`` without both
    offsets) counts 0 and is counted as unknown.
    """
    policy: ConsumerResetPolicy = reset_policy or snapshot.reset_policy
    lags = {t: [0] * n for t, n in counts.items()}
    known = {t: [False] * n for t, n in counts.items()}
    for p in snapshot.partitions:
        topic_lags = lags.get(p.topic)
        if topic_lags is None or p.partition >= len(topic_lags) or p.partition < 0:
            continue
        if p.current_offset is None:
            lag = lag_without_commit(policy, p.log_start_offset, p.log_end_offset)
        else:
            lag = p.lag
        if lag is not None:
            topic_lags[p.partition] = lag
            known[p.topic][p.partition] = True
    unknown = sum(flags.count(False) for flags in known.values())
    return lags, unknown


def snapshot_lag_source(snapshot: GroupSnapshot, request: AssignRequest) -> LagSource:
    lags, unknown = fitted_lags(snapshot, subscribed_counts(request), request.reset_policy)
    return LagSource(
        source="kafka",
        lags=lags,
        as_of=snapshot.as_of,
        complete=unknown == 0,
        unknown_partitions=unknown,
    )


def forecast_lag_source(
    forecast: ForecastSource, group_id: str, counts: Mapping[str, int]
) -> LagSource | None:
    """Forecast lags fitted to ``counts``, or None when there is no usable forecast."""
    group = forecast.group_forecast(group_id)
    if group is None:
        return None
    fitted = group.lags(counts)
    if fitted.unknown_partitions >= sum(counts.values()):
        return None
    return LagSource(
        source="forecast",
        lags=fitted.lags,
        as_of=group.as_of,
        complete=fitted.complete,
        unknown_partitions=fitted.unknown_partitions,
    )


async def fetch_on_demand(
    lag_view: LagReader, group_id: str, topics: Collection[str], budget_s: float
) -> GroupSnapshot | None:
    """The group's snapshot read now, or None when the budget runs out or Kafka fails."""
    if budget_s <= 0:
        return None
    try:
        async with asyncio.timeout(budget_s + FETCH_GRACE_S):
            return await lag_view.fetch_group(group_id, budget_s, topics)
    except TimeoutError:
        log.warning("on-demand lag fetch of group %r exceeded %.0f ms", group_id, budget_s * 1000)
    except (LagViewError, OSError, RuntimeError) as exc:  # KafkaError is a RuntimeError
        log.warning("on-demand lag fetch of group %r failed: %s", group_id, type(exc).__name__)
    return None


def covering_snapshot(request: AssignRequest, lag_view: LagReader) -> GroupSnapshot | None:
    """The lag view's cached snapshot of the group when it lists every topic the request
    subscribes to (the lag then comes from it alone), else None."""
    snapshot = lag_view.snapshot(request.group_id)
    if snapshot is None or not snapshot.topics() >= subscribed_topics(request):
        return None
    return snapshot


async def choose_lag_source(
    request: AssignRequest,
    lag_view: LagReader | None,
    forecast: ForecastSource | None,
    budget_s: float,
) -> LagSource:
    """The best lag source for this request, in the order of the module docstring."""
    if request.lags is not None:
        return request_lag_source(request)
    counts = subscribed_counts(request)
    if forecast is not None:
        fitted = forecast_lag_source(forecast, request.group_id, counts)
        if fitted is not None:
            return fitted
    if lag_view is None:
        return no_lag(counts)
    snapshot = covering_snapshot(request, lag_view)
    if snapshot is None:
        # A new group, or a topic new to the group: the cache has not read it.
        named = subscribed_topics(request)
        fetched = await fetch_on_demand(lag_view, request.group_id, named, budget_s)
        snapshot = fetched or lag_view.snapshot(request.group_id)
    if snapshot is None:
        return no_lag(counts)
    return snapshot_lag_source(snapshot, request)
