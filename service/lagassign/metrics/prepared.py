"""Prepared-join metrics, read from the prepared joins when Prometheus scrapes.

- ``lagassign_prepared_joins_total{outcome}``: the broker plugin's groups' next joins
  answered ahead after a refresh (``prepared``, by :mod:`lagassign.assign.lag_warmer`) and
  the joins served from them (``served``), as :mod:`lagassign.assign.answer_prepared`
  counts them.
  Both series are there from the start, at 0.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector

from lagassign.assign.answer_prepared import PreparedJoins


class PreparedJoinsCollector(Collector):
    def __init__(self, joins: PreparedJoins) -> None:
        self._joins = joins

    def collect(self) -> Iterator[Metric]:
        joins = CounterMetricFamily(
            "lagassign_prepared_joins",
            "The broker plugin's groups' next joins answered ahead after a refresh "
            "(prepared), and the joins served from them (served).",
            labels=["outcome"],
        )
        joins.add_metric(["prepared"], float(self._joins.prepared))
        joins.add_metric(["served"], float(self._joins.served))
        yield joins
