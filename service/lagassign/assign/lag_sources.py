"""Where ``POST /assign`` takes its lags from, in order of preference.

1. the request's own ``lags`` (``request``);
2. fresh forecast weights from the pipeline, when configured (``forecast``);
3. the lag view's cached snapshot of the group (``kafka``);
4. an on-demand fetch of the group, bounded by a budget (``kafka``);
5. nothing: count balance only (``none``).

Lags from the view or the weights are *fitted* to the request's partition
counts, because the leader's metadata is authoritative: partitions beyond the
request's count are dropped, and partitions the view has not seen get the lag
the group's reset policy implies and are counted as unknown.

Worked example: the view knows ``t0`` partitions 0..3 with lags ``[5, 6, 7, 8]``
and partition 1 of ``t1`` with lag 9; the request says ``t0`` has 3 partitions
and ``t1`` has 2. The fitted lags are ``{"t0": [5, 6, 7], "t1": [0, 9]}`` with
one unknown partition (``t1`` partition 0), so ``complete`` is false.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from lagassign.assign.request import AssignRequest
from lagassign.forecast.source import ForecastSource
from lagassign.lagview.errors import LagViewError
from lagassign.lagview.reader import LagReader
from lagassign.lagview.rules import ResetPolicy, lag_by_reset
from lagassign.lagview.snapshot import GroupSnapshot

log = logging.getLogger(__name__)

# How long past its budget an on-demand fetch may run before it is abandoned.
FETCH_GRACE_S = 0.05

LagOrigin = Literal["request", "kafka", "forecast", "none"]


@dataclass(frozen=True, slots=True)
class LagSource:
    """Where the lags of one answer come from, and how fresh and complete they are."""

    source: LagOrigin
    lags: Mapping[str, Sequence[int]] = field(default_factory=dict)
    as_of: datetime | None = None
    complete: bool = True
    unknown_partitions: int = 0


NO_LAG = LagSource(source="none", complete=False)


def request_lag_source(request: AssignRequest) -> LagSource:
    """The lags a request carries itself, or none."""
    if request.lags is None:
        return NO_LAG
    subscribed = {t for m in request.members for t in m.topics}
    return LagSource(source="request", lags=request.lags, complete=subscribed <= set(request.lags))


def subscribed_counts(request: AssignRequest) -> dict[str, int]:
    """Partition count of every topic some member subscribes to (as the request gives it)."""
    topics = {t for m in request.members for t in m.topics}
    return {t: n for t, n in request.partitions.items() if t in topics and n >= 0}


def fitted_lags(
    snapshot: GroupSnapshot,
    counts: Mapping[str, int],
    reset_policy: ResetPolicy | Literal["none"] | None = None,
) -> tuple[dict[str, list[int]], int]:
    """The snapshot's lags cut and filled to ``counts``, and how many partitions were unknown.

    ``reset_policy`` is the consumer's own ``auto.offset.reset`` when the request
    says it; otherwise the group's configured policy applies. Under ``none`` a
    partition without a known lag stays unknown and counts 0.
    """
    policy = snapshot.reset_policy if reset_policy is None else reset_policy
    lags = {t: [0] * n for t, n in counts.items()}
    known = {t: [False] * n for t, n in counts.items()}
    for p in snapshot.partitions:
        topic_lags = lags.get(p.topic)
        if topic_lags is None or p.partition >= len(topic_lags) or p.partition < 0:
            continue
        if p.current_offset is None and reset_policy is not None:
            # The consumer's own reset policy decides where it would start.
            if policy == "none":
                continue
            topic_lags[p.partition] = lag_by_reset(policy, p.log_start_offset, p.log_end_offset)
            known[p.topic][p.partition] = p.log_end_offset is not None
        elif p.lag is None:
            if policy != "none":
                topic_lags[p.partition] = lag_by_reset(policy, p.log_start_offset, p.log_end_offset)
        else:
            topic_lags[p.partition] = p.lag
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
    lag_view: LagReader, group_id: str, budget_s: float
) -> GroupSnapshot | None:
    """The group's snapshot fetched now, or None when the budget runs out or Kafka fails."""
    if budget_s <= 0:
        return None
    try:
        async with asyncio.timeout(budget_s + FETCH_GRACE_S):
            return await lag_view.fetch_group(group_id, budget_s)
    except TimeoutError:
        log.warning("on-demand lag fetch of group %r exceeded %.0f ms", group_id, budget_s * 1000)
    except (LagViewError, OSError, RuntimeError) as exc:  # KafkaError is a RuntimeError
        log.warning("on-demand lag fetch of group %r failed: %s", group_id, type(exc).__name__)
    return None


async def choose_lag_source(
    request: AssignRequest,
    lag_view: LagReader | None,
    forecast: ForecastSource | None,
    budget_s: float,
) -> LagSource:
    """The best lag source for this request, in the order of the module docstring."""
    if request.lags is not None:
        return request_lag_source(request)
    if forecast is not None:
        fitted = forecast_lag_source(forecast, request.group_id, subscribed_counts(request))
        if fitted is not None:
            return fitted
    if lag_view is None:
        return NO_LAG
    snapshot = lag_view.snapshot(request.group_id)
    if snapshot is None:
        snapshot = await fetch_on_demand(lag_view, request.group_id, budget_s)
    if snapshot is None:
        return NO_LAG
    return snapshot_lag_source(snapshot, request)
