"""Rebalance advice metrics, read from the advice tracker when Prometheus scrapes.

- ``lagassign_rebalance_advised{group}``: 1 while a rebalance is advised, else 0;
- ``lagassign_advised_rebalances_total{group}``: rebalances the sidecar saw while
  the advice was to rebalance (the ones that followed it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Protocol

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector


class AdviceCounts(Protocol):
    """What the collector reads of the advice tracker (:mod:`lagassign.groups.advice_tracker`)."""

    def advised(self) -> Mapping[str, bool]: ...

    def followed(self) -> Mapping[str, int]: ...


class AdviceCollector(Collector):
    def __init__(self, tracker: AdviceCounts) -> None:
        self._tracker = tracker

    def collect(self) -> Iterator[Metric]:
        advised = GaugeMetricFamily(
            "lagassign_rebalance_advised",
            "1 while the sidecar advises the group to rebalance, else 0.",
            labels=["group"],
        )
        followed = CounterMetricFamily(
            "lagassign_advised_rebalances",
            "Rebalances of the group seen while a rebalance was advised.",
            labels=["group"],
        )
        advice = self._tracker.advised()
        for group_id, now in sorted(advice.items()):
            advised.add_metric([group_id], 1.0 if now else 0.0)
        counts = self._tracker.followed()
        for group_id in sorted(set(advice) | set(counts)):
            followed.add_metric([group_id], float(counts.get(group_id, 0)))
        yield advised
        yield followed
