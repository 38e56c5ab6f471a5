"""The app's own registry with every metric of the sidecar in it."""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Info

from lagassign import __version__
from lagassign.assign.answer_log import AnswerLog
from lagassign.forecast.source import ForecastSource
from lagassign.lagview.reader import LagReader
from lagassign.metrics.assign import AssignMetrics
from lagassign.metrics.assigned_by import AssignmentWatch
from lagassign.metrics.forecast import ForecastWeightsCollector
from lagassign.metrics.lag_view import LagViewCollector, RefreshMetrics
from lagassign.metrics.live_match import LiveMatchCollector, LiveStatus
from lagassign.metrics.rates import RatesCollector
from lagassign.rates.window import RateWindow


@dataclass(frozen=True, slots=True)
class ServiceMetrics:
    registry: CollectorRegistry
    assign: AssignMetrics
    refresh: RefreshMetrics
    partition_metrics: bool
    #: How each group's live assignment was made (a refresh listener).
    assignments: AssignmentWatch

    def collect_weights_of(self, source: ForecastSource) -> None:
        """Expose the forecast weights' state at every scrape."""
        self.registry.register(ForecastWeightsCollector(source))

    def collect_lag_of(self, lag_view: LagReader) -> None:
        """Expose the lag of ``lag_view``'s cached snapshots at every scrape."""
        self.registry.register(LagViewCollector(lag_view, partition_metrics=self.partition_metrics))

    def collect_live_match_of(
        self, lag_view: LagReader, answers: AnswerLog, status: LiveStatus
    ) -> None:
        """Expose, per answered group, whether its live assignment is the last answer
        (``status`` compares them), and how its live assignment was made."""
        self.assignments.watch(lag_view)
        self.registry.register(LiveMatchCollector(lag_view, answers, status))

    def collect_rates_of(self, lag_view: LagReader, rates: RateWindow) -> None:
        """Expose the live rates and time lag of ``lag_view``'s groups at every scrape."""
        self.registry.register(
            RatesCollector(lag_view, rates, partition_metrics=self.partition_metrics)
        )


def service_metrics(
    *, partition_metrics: bool, max_groups: int = 1_000, group_idle_s: float = 3_600.0
) -> ServiceMetrics:
    """A fresh registry holding the answer and refresh metrics and the build info."""
    registry = CollectorRegistry(auto_describe=False)
    Info("lagassign_build", "The running lagassign version.", registry=registry).info(
        {"version": __version__}
    )
    assignments = AssignmentWatch(max_groups=max_groups)
    registry.register(assignments)
    return ServiceMetrics(
        registry,
        AssignMetrics(registry, max_groups=max_groups, group_idle_s=group_idle_s),
        RefreshMetrics(registry),
        partition_metrics,
        assignments,
    )
