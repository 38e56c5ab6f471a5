"""Prepared-join metrics, read from the lag warmer and the prepared joins when Prometheus scrapes.

- ``lagassign_prepared_joins_total{outcome}``: the broker plugin's groups' next joins
  answered ahead after a refresh (``prepared``, :mod:`lagassign.assign.lag_warmer`) and
  the joins served from them (``served``, :mod:`lagassign.assign.answer_prepared`).
  Both series are there from the start, at 0.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector

from lagassign.assign.answer_prepared import PreparedJoins
from lagassign.assign.lag_warmer import LagWarmer


class PreparedJoinsCollector(Collector):
    def __init__(self, warmer: LagWarmer, joins: PreparedJoins) -> None:
        self._warmer = warmer
        self._joins = joins

    def collect(self) -> Iterator[Metric]:
        joins = CounterMetricFamily(
            "lagassign_prepared_joins",
            "The broker plugin's groups' next joins answered ahead after a refresh "
            "(prepared), and the joins served from them (served).",
            labels=["outcome"],
        )
        joins.add_metric(["prepared"], float(self._warmer.joins_prepared))
        joins.add_metric(["served"], float(self._joins.served))
        yield joins
