"""Live rate and time-lag metrics, read from the rate window when Prometheus scrapes.

Per group (for every tracked group with a snapshot):

- ``lagassign_group_lag_seconds_max{group}``: the worst known time lag over every
  partition, seconds: each partition's time lag is the larger of the rate window's and
  the lower bound of :mod:`lagassign.lagview.time_lag` (a stalled partition past the
  window, a backlog right after a restart), so the worst never leaves a partition out;
- ``lagassign_group_produce_rate{group}`` and ``lagassign_group_consume_rate{group}``:
  records per second, summed over the partitions whose rate is known.

Per partition, behind the same switch as ``lagassign_partition_lag``
(``LAGASSIGN_PARTITION_METRICS``): ``lagassign_partition_lag_seconds``,
``lagassign_partition_produce_rate`` and ``lagassign_partition_consume_rate``
``{group,topic,partition}`` (the partition's time lag taken the same way). A value that is
not known has no sample.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from lagassign.lagview.reader import LagReader
from lagassign.metrics.lag_view import stall_clock
from lagassign.rates.totals import total
from lagassign.rates.window import RateWindow

TopicPartition = tuple[str, int]


class RatesCollector(Collector):
    def __init__(
        self, lag_view: LagReader, rates: RateWindow, *, partition_metrics: bool = True
    ) -> None:
        self._lag_view = lag_view
        self._rates = rates
        self._partition_metrics = partition_metrics

    def collect(self) -> Iterator[Metric]:
        group_labels = ["group"]
        partition_labels = ["group", "topic", "partition"]
        worst = GaugeMetricFamily(
            "lagassign_group_lag_seconds_max",
            "Largest known time lag over every partition of the group (seconds since the "
            "log end was at the committed offset; at least the stalled-partition bound).",
            labels=group_labels,
        )
        produce = GaugeMetricFamily(
            "lagassign_group_produce_rate",
            "Records per second written to the group's partitions, over the rate window.",
            labels=group_labels,
        )
        consume = GaugeMetricFamily(
            "lagassign_group_consume_rate",
            "Records per second the group committed, over the rate window.",
            labels=group_labels,
        )
        p_lag = GaugeMetricFamily(
            "lagassign_partition_lag_seconds",
            "Time lag of one partition for the group, seconds.",
            labels=partition_labels,
        )
        p_produce = GaugeMetricFamily(
            "lagassign_partition_produce_rate",
            "Records per second written to one partition, over the rate window.",
            labels=partition_labels,
        )
        p_consume = GaugeMetricFamily(
            "lagassign_partition_consume_rate",
            "Records per second the group committed on one partition, over the rate window.",
            labels=partition_labels,
        )
        stalls = stall_clock(self._lag_view)
        for group_id, snapshot in sorted(self._lag_view.snapshots().items()):
            figures = self._rates.rates_of(snapshot)
            sums = total(figures.values())
            lag_seconds = time_lags(
                {tp: f.lag_seconds for tp, f in figures.items()},
                stalls.at_least(snapshot) if stalls is not None else {},
            )
            if lag_seconds:
                worst.add_metric([group_id], max(lag_seconds.values()))
            if sums.produce_rate is not None:
                produce.add_metric([group_id], sums.produce_rate)
            if sums.consume_rate is not None:
                consume.add_metric([group_id], sums.consume_rate)
            if not self._partition_metrics:
                continue
            for (topic, number), seconds in lag_seconds.items():
                p_lag.add_metric([group_id, topic, str(number)], seconds)
            for (topic, number), f in figures.items():
                labels = [group_id, topic, str(number)]
                if f.produce_rate is not None:
                    p_produce.add_metric(labels, f.produce_rate)
                if f.consume_rate is not None:
                    p_consume.add_metric(labels, f.consume_rate)
        yield worst
        yield produce
        yield consume
        if self._partition_metrics:
            yield p_lag
            yield p_produce
            yield p_consume

    def describe(self) -> Iterator[Metric]:
        return iter(())


def time_lags(
    window: dict[TopicPartition, float | None], at_least: dict[TopicPartition, float]
) -> dict[TopicPartition, float]:
    """Each partition's known time lag: the larger of the window's and the stall bound.

    >>> time_lags({("t", 0): 3.0, ("t", 1): None}, {("t", 1): 700.0, ("t", 2): 0.0})
    {('t', 0): 3.0, ('t', 1): 700.0, ('t', 2): 0.0}
    """
    out = {tp: s for tp, s in window.items() if s is not None}
    for tp, bound in at_least.items():
        out[tp] = max(out.get(tp, bound), bound)
    return out
