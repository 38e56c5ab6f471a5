"""Lag metrics read from the lag view's cached snapshots when Prometheus scrapes.

:class:`LagViewCollector` is a custom collector: it holds no values of its own
and reads ``lag_view.snapshots()`` (frozen, cached values) at scrape time, so a
scrape never waits on Kafka and a group that stops being tracked disappears.
Partitions whose lag is unknown get no ``lagassign_partition_lag`` sample.
``lagassign_group_lag_seconds_at_least`` is the lower bound of the group's worst
time lag over every partition that is behind (:mod:`lagassign.lagview.time_lag`),
there even when the rate window cannot interpolate it.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from lagassign.history.recorder import recorder_of
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.reader import LagReader
from lagassign.lagview.time_lag import StallClock

REFRESH_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class LagViewCollector(Collector):
    def __init__(self, lag_view: LagReader, *, partition_metrics: bool = True) -> None:
        self._lag_view = lag_view
        self._partition_metrics = partition_metrics

    def collect(self) -> Iterator[Metric]:
        view = self._lag_view
        lag_sum = GaugeMetricFamily(
            "lagassign_group_lag_sum",
            "Sum of the known partition lags of the group.",
            labels=["group"],
        )
        lag_max = GaugeMetricFamily(
            "lagassign_group_lag_max", "Largest known partition lag of the group.", labels=["group"]
        )
        as_of = GaugeMetricFamily(
            "lagassign_lag_snapshot_timestamp_seconds",
            "When the group's cached lag was read (Unix time).",
            labels=["group"],
        )
        partition = GaugeMetricFamily(
            "lagassign_partition_lag",
            "Lag of one partition for the group, by the lag rules.",
            labels=["group", "topic", "partition"],
        )
        at_least = GaugeMetricFamily(
            "lagassign_group_lag_seconds_at_least",
            "Lower bound of the group's worst time lag, over every partition behind: "
            "seconds since its committed offset was first seen where it is, or since the "
            "record at that offset was written when earlier.",
            labels=["group"],
        )
        stalls = stall_clock(view)
        for group_id, snapshot in sorted(view.snapshots().items()):
            if stalls is not None:
                at_least.add_metric([group_id], stalls.worst_at_least(snapshot))
            known = [
                (p.topic, p.partition, p.lag) for p in snapshot.partitions if p.lag is not None
            ]
            lag_sum.add_metric([group_id], sum(lag for _, _, lag in known))
            lag_max.add_metric([group_id], max((lag for _, _, lag in known), default=0))
            as_of.add_metric([group_id], snapshot.as_of.timestamp())
            if self._partition_metrics:
                for topic, number, lag in known:
                    partition.add_metric([group_id, topic, str(number)], lag)
        yield lag_sum
        yield lag_max
        yield as_of
        if stalls is not None:
            yield at_least
        if self._partition_metrics:
            yield partition
        yield GaugeMetricFamily(
            "lagassign_kafka_up",
            "1 when the last lag refresh reached Kafka, else 0.",
            value=1.0 if view.kafka_up else 0.0,
        )
        yield CounterMetricFamily(
            "lagassign_lag_refresh_errors",
            "Lag refreshes that failed.",
            value=float(view.refresh_errors_total),
        )
        yield GaugeMetricFamily(
            "lagassign_consumer_group_members_indexed",
            "Members of consumer-protocol groups the broker plugin's requests resolve through.",
            value=float(view.consumer_index.members),
        )
        yield CounterMetricFamily(
            "lagassign_tracked_groups_evicted",
            "Groups tracked on demand and dropped: idle too long, or past the cap.",
            value=float(view.tracked_groups_evicted_total),
        )

        recorder = recorder_of(view)
        if recorder is not None:
            state = recorder.state()
            yield CounterMetricFamily(
                "lagassign_history_write_errors",
                "Lag history appends (and closes) that failed (LAGASSIGN_HISTORY_DIR).",
                value=float(state.errors_total),
            )
            yield GaugeMetricFamily(
                "lagassign_history_write_failing",
                "1 while the lag history's last append failed, else 0.",
                value=1.0 if state.failing else 0.0,
            )

    def describe(self) -> Iterator[Metric]:
        # Describing would call collect(); nothing to check at registration.
        return iter(())


def stall_clock(view: LagReader) -> StallClock | None:
    """The real lag view's stall clock (a test's fake view has none)."""
    clock = getattr(getattr(view, "store", None), "stalls", None)
    return clock if isinstance(clock, StallClock) else None


class RefreshMetrics:
    """The refresh-duration histogram: a refresh listener of the lag view."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.duration = Histogram(
            "lagassign_lag_refresh_duration_seconds",
            "Time one refresh of the lag view took.",
            buckets=REFRESH_BUCKETS,
            registry=registry,
        )

    def observe_refresh(self, duration_s: float, ok: bool) -> None:
        self.duration.observe(duration_s)

    async def refreshed(self, refresh: Refresh) -> None:
        """As a refresh listener of the lag view."""
        self.observe_refresh(refresh.duration_s, refresh.ok)

    async def close(self) -> None:
        """Nothing to finish."""
