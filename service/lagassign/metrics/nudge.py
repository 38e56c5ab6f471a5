"""Nudge metrics, read from the nudger (:mod:`lagassign.groups.nudger`) when Prometheus scrapes.

- ``lagassign_nudges_total{group,outcome}``: how often the sidecar made the broker
  recompute a consumer-protocol group's target assignment on the advice, by outcome
  (``nudged``, ``not_recomputed``, ``recomputed_recently``: not joined, another replica
  or a real change had just moved the group's epochs; ``refused``, ``failed``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector


class NudgeCollector(Collector):
    def __init__(self, counts: Callable[[], Mapping[tuple[str, str], int]]) -> None:
        self._counts = counts

    def collect(self) -> Iterator[Metric]:
        nudges = CounterMetricFamily(
            "lagassign_nudges",
            "Times the sidecar's own member joined and left a consumer-protocol group so that "
            "the broker recomputes its assignment, on the advice, by outcome.",
            labels=["group", "outcome"],
        )
        for (group_id, outcome), count in sorted(self._counts().items()):
            nudges.add_metric([group_id, outcome], float(count))
        yield nudges
