"""The ``drain`` lag model applied to one ``POST /assign``: the lag view's lags as drain weights.

With ``LAGASSIGN_LAG_MODEL=drain`` (the default), lags read from the lag view
(source ``kafka``) become each partition's drain weight (:mod:`.drain`): its lag
plus its recent produce rate times the group's catch-up horizon, and the
answer's ``lag.source`` says ``kafka-drain``, with the horizon, the member
capacity it used (null while unknown) and how many partitions' rates were not
known (``unknown_rates``; they weigh their lag alone). Request lags and fresh
forecast weights are left as they are.
"""

from __future__ import annotations

from dataclasses import replace

from lagassign.assign.lag_sources import LagSource
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.rates.drain import (
    RECENT_SPAN_S,
    Live,
    catch_up_horizon,
    drain_weights,
    measured_capacity,
    total_rate,
)
from lagassign.rates.window import RateWindow


def live_of(snapshot: GroupSnapshot | None) -> Live:
    """The members' decoded assignments in ``snapshot`` (empty when there is none)."""
    if snapshot is None:
        return {}
    return {m.member_id: m.assignment for m in snapshot.members}


def with_drain(
    lag: LagSource,
    group_id: str,
    rates: RateWindow,
    live: Live,
    *,
    members: int,
    capacity_setting: float | None = None,
) -> LagSource:
    """``lag`` (source ``kafka``) as drain weights for a group of ``members`` members.

    ``live`` is the group's live assignment as the lag view last saw it (the
    members reading now, whose consume rates measure capacity: :func:`live_of`).
    """
    if lag.source != "kafka":
        return lag
    span_ms = round(RECENT_SPAN_S * 1000)
    gap_ms = rates.max_gap_ms
    produce: dict[tuple[str, int], float | None] = {}
    consume: dict[tuple[str, int], float | None] = {}
    lag_of: dict[tuple[str, int], int | None] = {}
    for topic, row in lag.lags.items():
        for partition, backlog in enumerate(row):
            window = rates.partition_window(group_id, topic, partition)
            key = (topic, partition)
            lag_of[key] = backlog
            if window is None:
                produce[key] = consume[key] = None
            else:
                produce[key] = window.recent_produce_rate(span_ms, gap_ms)
                consume[key] = window.recent_consume_rate(span_ms, gap_ms)
    for topics in live.values():
        for topic, partitions in topics.items():
            for partition in partitions:
                key = (topic, partition)
                if key not in consume:
                    window = rates.partition_window(group_id, topic, partition)
                    consume[key] = (
                        window.recent_consume_rate(span_ms, gap_ms) if window is not None else None
                    )
    capacity = capacity_setting
    source = "setting"
    if capacity is None:
        capacity, source = measured_capacity(live, lag_of, consume), "measured"
    total_lag = sum(sum(row) for row in lag.lags.values())
    horizon = catch_up_horizon(
        total_lag, total_rate(produce.values()), members, capacity, capacity_source=source
    )
    weights, unknown = drain_weights(lag.lags, produce, horizon.seconds)
    flows = any(rate for rate in produce.values())
    return replace(
        lag,
        source="kafka-drain",
        lags=weights,
        horizon=horizon,
        unknown_rates=unknown,
        flows=flows,
    )
