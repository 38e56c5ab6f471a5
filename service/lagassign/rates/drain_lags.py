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
    members reading now, whose reading rates measure capacity: :func:`live_of`).
    """
    if lag.source != "kafka":
        return lag
    windows = rates.group_windows(group_id)
    produce: dict[tuple[str, int], float | None] = {}
    reading: dict[tuple[str, int], float | None] = {}
    lag_of: dict[tuple[str, int], int | None] = {}
    for topic, row in lag.lags.items():
        for partition, backlog in enumerate(row):
            key = (topic, partition)
            window = windows.get(key)
            lag_of[key] = backlog
            produce[key] = window.recent_produce if window is not None else None
    for topics in live.values():
        for topic, partitions in topics.items():
            for partition in partitions:
                window = windows.get((topic, partition))
                reading[(topic, partition)] = window.reading_rate if window else None
    capacity = capacity_setting
    source = "setting"
    if capacity is None:
        capacity, source = measured_capacity(live, lag_of, reading), "measured"
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
