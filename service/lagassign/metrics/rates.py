"""Live rate and time-lag metrics, read from the rate window when Prometheus scrapes.

Per group (for every tracked group with a snapshot):

- ``lagassign_group_lag_seconds_max{group}``: the worst known time lag, seconds;
- ``lagassign_group_produce_rate{group}`` and ``lagassign_group_consume_rate{group}``:
  records per second, summed over the partitions whose rate is known.

Per partition, behind the same switch as ``lagassign_partition_lag``
(``LAGASSIGN_PARTITION_METRICS``): ``lagassign_partition_lag_seconds``,
``lagassign_partition_produce_rate`` and ``lagassign_partition_consume_rate``
``{group,topic,partition}``. A value that is not known has no sample.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from lagassign.lagview.reader import LagReader
from lagassign.rates.totals import total
from lagassign.rates.window import RateWindow


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
            "Largest known time lag of the group's partitions (seconds since the log end "
            "was at the committed offset).",
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
        for group_id, snapshot in sorted(self._lag_view.snapshots().items()):
            figures = self._rates.rates_of(snapshot)
            sums = total(figures.values())
            if sums.lag_seconds_max is not None:
                worst.add_metric([group_id], sums.lag_seconds_max)
            if sums.produce_rate is not None:
                produce.add_metric([group_id], sums.produce_rate)
            if sums.consume_rate is not None:
                consume.add_metric([group_id], sums.consume_rate)
            if not self._partition_metrics:
                continue
            for (topic, number), f in figures.items():
                labels = [group_id, topic, str(number)]
                if f.lag_seconds is not None:
                    p_lag.add_metric(labels, f.lag_seconds)
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
