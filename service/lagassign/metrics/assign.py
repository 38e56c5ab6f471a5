"""Metrics of the answers ``POST /assign`` gives (and of the requests it refuses).

Counters start at 0 for every label value known in advance, so ``rate()`` and
``increase()`` see the first event after a start (a series that appears with its first
increment has no earlier sample to compare with, and that event is lost to them):

- ``lagassign_assign_failures_total{reason}`` for every reason in :data:`FAILURE_REASONS`,
  when the app starts;
- ``lagassign_assign_requests_total{group,strategy}`` for every strategy, and
  ``lagassign_assignment_moved_partitions_total{group}``, as soon as the group is known
  (:meth:`AssignMetrics.track_groups`: the groups of ``LAGASSIGN_GROUPS`` at start, the
  lag view's tracked groups after each refresh, a group's first ``POST /assign``).
"""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from lagassign.assign.answer import Answer
from lagassign.core.strategies import STRATEGIES
from lagassign.errors import (
    BadRequest,
    InvalidJson,
    TooLarge,
    Unauthorized,
    Unavailable,
)
from lagassign.lagview.listeners import Refresh

# 1 ms to 5 s: a rebalance waits on this, and the shims give up at 1.5 s.
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

#: Every ``reason`` a failed ``POST /assign`` is counted by: the error codes its route
#: can answer with (``method_not_allowed``: a request with another method than POST).
FAILURE_REASONS: tuple[str, ...] = (
    InvalidJson.code,
    BadRequest.code,
    Unauthorized.code,
    TooLarge.code,
    Unavailable.code,
    "method_not_allowed",
)


class AssignMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.requests = Counter(
            "lagassign_assign_requests",
            "Assignments answered, by group and strategy.",
            ["group", "strategy"],
            registry=registry,
        )
        self.failures = Counter(
            "lagassign_assign_failures",
            "POST /assign requests refused or failed, by reason (the error code).",
            ["reason"],
            registry=registry,
        )
        self.duration = Histogram(
            "lagassign_assign_duration_seconds",
            "Time to handle POST /assign, from the request to the encoded answer.",
            buckets=DURATION_BUCKETS,
            registry=registry,
        )
        self.imbalance = Gauge(
            "lagassign_assignment_imbalance_ratio",
            "Max member lag over mean member lag of the group's last answer (1 is perfect).",
            ["group"],
            registry=registry,
        )
        self.moved = Counter(
            "lagassign_assignment_moved_partitions",
            "Partitions given to a member other than their previous owner.",
            ["group"],
            registry=registry,
        )
        for reason in FAILURE_REASONS:
            self.failures.labels(reason)
        self._groups: set[str] = set()

    def track_groups(self, group_ids: Iterable[str]) -> None:
        """Start the counters of groups not seen before at 0, one series per strategy."""
        for group_id in group_ids:
            if group_id in self._groups:
                continue
            self._groups.add(group_id)
            for strategy in STRATEGIES:
                self.requests.labels(group_id, strategy)
            self.moved.labels(group_id)

    async def refreshed(self, refresh: Refresh) -> None:
        """As a refresh listener of the lag view: the groups it read are known from now on."""
        self.track_groups(s.group_id for s in refresh.fresh)

    async def close(self) -> None:
        """Nothing to finish."""

    def observe_answer(self, answer: Answer, seconds: float) -> None:
        self.track_groups((answer.group_id,))
        self.requests.labels(answer.group_id, answer.strategy).inc()
        self.duration.observe(seconds)
        self.imbalance.labels(answer.group_id).set(answer.stats.imbalance)
        self.moved.labels(answer.group_id).inc(answer.stats.moved)

    def observe_failure(self, reason: str, seconds: float | None = None) -> None:
        self.failures.labels(reason).inc()
        if seconds is not None:
            self.duration.observe(seconds)
