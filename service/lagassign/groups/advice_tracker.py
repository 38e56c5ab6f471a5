"""Keeps the rebalance advice of every tracked group, refresh after refresh.

:class:`AdviceTracker` is a :class:`~lagassign.lagview.listeners.RefreshListener`:
after each refresh it runs :func:`~lagassign.groups.advice.advise` for every
group the view knows, with the group's fresh snapshot (or none, when the group
was not read in this refresh) and the state it kept from the refresh before.
``GET /groups/{id}/advice`` and the metrics read :meth:`advice_of`, so a poll
never runs a strategy or waits on Kafka.

The work is one strategy run per fresh classic group per refresh (the same run
``GET /groups/{id}`` makes); it runs in a worker thread, off the event loop.

The lags weighed are those ``POST /assign`` would balance
(:mod:`lagassign.groups.advice_weights`): fresh forecast weights when they cover the
group, else the lag model's weights (``drain`` or ``load``), else the lag
(:meth:`AdviceTracker.weigh_with` gives the forecast, the rate window and the model).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime

from lagassign.assign.lag_sources import LagOrigin
from lagassign.forecast.source import ForecastSource
from lagassign.groups.advice import Advice, AdvicePolicy, AdviceState, advise
from lagassign.groups.advice_weights import contradicted, drained, forecast_covers, weighed
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.reader import LagReader
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.lagview.store import utc_now
from lagassign.rates.window import RateWindow


class AdviceTracker:
    """The last advice and the decision state per group, fed by the refresh loop."""

    def __init__(
        self,
        policy: AdvicePolicy,
        *,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.policy = policy
        self._clock = clock
        self._view: LagReader | None = None
        self._states: dict[str, AdviceState] = {}
        self._advice: dict[str, Advice] = {}
        self._followed: dict[str, int] = {}
        # group -> (nudges so far, the last one's line): kept on every advice of the group.
        self._nudges: dict[str, tuple[int, str]] = {}
        self._forecast: ForecastSource | None = None
        self._rates: RateWindow | None = None
        self._model = "backlog"
        self._horizon_s = 0.0
        self._capacity: float | None = None

    def weigh_with(
        self,
        forecast: ForecastSource | None,
        rates: RateWindow | None,
        lag_model: str = "backlog",
        *,
        load_horizon_s: float = 0.0,
        member_capacity: float | None = None,
    ) -> None:
        """Weigh by fresh forecast weights when there are some, else by the lag model's
        weights: ``load`` (lag + produce rate x ``load_horizon_s``), ``drain`` (lag +
        produce rate x the group's catch-up horizon, :mod:`lagassign.rates.drain`) or
        ``backlog`` (the lag)."""
        self._forecast = forecast
        self._rates = rates
        self._model = lag_model if rates is not None else "backlog"
        self._horizon_s = load_horizon_s
        self._capacity = member_capacity

    def _distrust(self, snapshot: GroupSnapshot | None) -> str | None:
        """Why the group's forecast cannot be acted on (the live lag contradicts it)."""
        rates = self._rates
        if snapshot is None or rates is None or self._forecast is None:
            return None
        group = self._forecast.group_forecast(snapshot.group_id)
        if group is None or not forecast_covers(snapshot, group.topics):
            return None
        group_id = snapshot.group_id

        def flow(topic: str, partition: int) -> tuple[float | None, float | None]:
            window = rates.partition_window(group_id, topic, partition)
            if window is None:
                return None, None
            return window.produce_rate(), window.consume_rate()

        with rates.lock:
            return contradicted(snapshot, group.topics, flow)

    def _weighed(
        self, snapshot: GroupSnapshot | None
    ) -> tuple[GroupSnapshot | None, LagOrigin, float | None]:
        """The snapshot as weighed, the weights' source, and the member capacity if known."""
        if snapshot is None:
            return None, "kafka", None
        group = self._forecast.group_forecast(snapshot.group_id) if self._forecast else None
        forecast = group.topics if group is not None else None
        rates = self._rates
        forecast_first = forecast is not None and forecast_covers(snapshot, forecast)
        if rates is None or self._model == "backlog" or forecast_first:
            return (*weighed(snapshot, forecast=forecast), None)
        if self._model == "drain":
            drained_snapshot, horizon = drained(snapshot, rates, self._capacity)
            return drained_snapshot, "kafka-drain", horizon.capacity
        group_id = snapshot.group_id

        def produce_rate(topic: str, partition: int) -> float | None:
            window = rates.partition_window(group_id, topic, partition)
            return window.produce_rate() if window is not None else None

        with rates.lock:
            return (
                *weighed(
                    snapshot,
                    forecast=forecast,
                    produce_rate=produce_rate,
                    horizon_s=self._horizon_s,
                ),
                None,
            )

    def watch(self, view: LagReader) -> None:
        """Read the group list of ``view`` (every tracked group gets an advice)."""
        self._view = view

    def advice_of(self, group_id: str) -> Advice | None:
        """The last advice for ``group_id``; ``None`` before its first refresh."""
        return self._advice.get(group_id)

    def advice(self) -> Mapping[str, Advice]:
        return dict(self._advice)

    def advised(self) -> Mapping[str, bool]:
        """Group -> whether a rebalance is advised now (for the metrics)."""
        return {group_id: a.advised for group_id, a in self._advice.items()}

    def followed(self) -> Mapping[str, int]:
        """Group -> rebalances seen while the advice was to rebalance."""
        return dict(self._followed)

    def record_nudge(self, group_id: str, line: str) -> None:
        """One more nudge of ``group_id`` (:mod:`lagassign.groups.nudger`), shown on its advice."""
        count = self._nudges.get(group_id, (0, ""))[0] + 1
        self._nudges[group_id] = (count, line)
        advice = self._advice.get(group_id)
        if advice is not None:
            self._advice = {
                **self._advice,
                group_id: replace(advice, nudges=count, last_nudge=line),
            }

    def observe(self, refresh: Refresh, *, kafka_up: bool, groups: set[str]) -> None:
        """One step for every group in ``groups`` and every freshly read group.

        The new advice replaces the old in one assignment each, so a reader on another
        thread sees either the last refresh's advice or this one's, never a mix.
        """
        now = self._clock()
        fresh = {s.group_id: s for s in refresh.fresh}
        states: dict[str, AdviceState] = {}
        advice: dict[str, Advice] = {}
        tracked = groups | set(fresh)
        # What is kept of a group no longer tracked goes with it (in place: a nudge may
        # be recorded on the event loop meanwhile).
        followed = {g: n for g, n in self._followed.items() if g in tracked}
        for gone in set(self._nudges) - tracked:
            self._nudges.pop(gone, None)
        for group_id in sorted(tracked):
            snapshot, lag_source, capacity = self._weighed(fresh.get(group_id))
            distrust = self._distrust(fresh.get(group_id)) if lag_source == "forecast" else None
            outcome = advise(
                group_id,
                snapshot,
                self._states.get(group_id),
                now=now,
                kafka_up=kafka_up,
                policy=self.policy,
                lag_source=lag_source,
                capacity=capacity,
                distrust=distrust,
            )
            states[group_id] = outcome.state
            advice[group_id] = outcome.advice
            if group_id in self._nudges:
                count, line = self._nudges[group_id]
                advice[group_id] = replace(outcome.advice, nudges=count, last_nudge=line)
            if outcome.followed_advice:
                followed[group_id] = followed.get(group_id, 0) + 1
        self._states, self._advice, self._followed = states, advice, followed

    async def refreshed(self, refresh: Refresh) -> None:
        view = self._view
        kafka_up = view.kafka_up if view is not None else refresh.ok or bool(refresh.fresh)
        groups = set(view.snapshots()) if view is not None else set()
        # A strategy run per group: off the event loop that answers POST /assign.
        await asyncio.to_thread(self.observe, refresh, kafka_up=kafka_up, groups=groups)

    async def close(self) -> None:
        return None
