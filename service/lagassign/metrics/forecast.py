"""The forecast weights' state as metrics, read from the forecast source at scrape time.

Registered only when ``LAGASSIGN_WEIGHTS_PATH`` is set:

- ``lagassign_forecast_weights_loaded``: 1 when the last read of the file succeeded;
- ``lagassign_forecast_weights_load_error``: 1 while the file is unusable (unreadable,
  not JSON, breaks the format); ``/groups`` shows the reason. Both 0: the file is missing;
- ``lagassign_forecast_weights_load_errors_total``: failed reads;
- ``lagassign_forecast_weights_in_use``: 1 when ``/assign`` may answer from the weights;
- ``lagassign_forecast_weights_age_seconds``: age of the newest history behind the
  weights held (no sample when none are held);
- ``lagassign_forecast_weights_groups``, ``lagassign_forecast_weights_fresh_groups``:
  groups in the weights held, and those fresh now.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from lagassign.forecast.source import ForecastSource


class ForecastWeightsCollector(Collector):
    def __init__(self, source: ForecastSource) -> None:
        self._source = source

    def collect(self) -> Iterator[Metric]:
        state = self._source.state()
        yield GaugeMetricFamily(
            "lagassign_forecast_weights_loaded",
            "1 when the last read of the forecast weights file succeeded.",
            value=1.0 if state.file == "loaded" else 0.0,
        )
        yield GaugeMetricFamily(
            "lagassign_forecast_weights_load_error",
            "1 while the forecast weights file is unusable (see /groups for why).",
            value=1.0 if state.file == "invalid" else 0.0,
        )
        yield CounterMetricFamily(
            "lagassign_forecast_weights_load_errors",
            "Reads of the forecast weights file that failed.",
            value=float(state.load_errors_total),
        )
        yield GaugeMetricFamily(
            "lagassign_forecast_weights_in_use",
            "1 when POST /assign may answer from the forecast weights.",
            value=1.0 if state.in_use else 0.0,
        )
        age = GaugeMetricFamily(
            "lagassign_forecast_weights_age_seconds",
            "Age of the newest history behind the forecast weights held.",
        )
        if state.age_seconds is not None:
            age.add_metric([], state.age_seconds)
        yield age
        yield GaugeMetricFamily(
            "lagassign_forecast_weights_groups",
            "Groups in the forecast weights held.",
            value=float(state.groups),
        )
        yield GaugeMetricFamily(
            "lagassign_forecast_weights_fresh_groups",
            "Groups whose forecast is fresh now (history at most the maximum age old).",
            value=float(state.fresh_groups),
        )

    def describe(self) -> Iterator[Metric]:
        return iter(())
