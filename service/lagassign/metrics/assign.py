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

The series labelled by group are bounded: a group neither answered nor read by the
lag view for ``group_idle_s`` loses them (at the next answer, refresh or scrape), and
past ``max_groups`` groups the least recently used loses them at once.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from lagassign.assign.answer import Answer
from lagassign.core.strategies import STRATEGIES
from lagassign.errors import (
    BadRequest,
    InvalidJson,
    RequestTimeout,
    TooLarge,
    Unauthorized,
    Unavailable,
    UnsupportedMediaType,
    WrongGroup,
)
from lagassign.lagview.listeners import Refresh

# 1 ms to 5 s: a rebalance waits on this, and the shims give up at 1.5 s.
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

#: Every ``reason`` a failed ``POST /assign`` is counted by: the error codes its route
#: can answer with (``method_not_allowed``: a request with another method than POST).
FAILURE_REASONS: tuple[str, ...] = (
    InvalidJson.code,
    BadRequest.code,
    WrongGroup.code,
    Unauthorized.code,
    TooLarge.code,
    UnsupportedMediaType.code,
    RequestTimeout.code,
    Unavailable.code,
    "method_not_allowed",
)


class AssignMetrics:
    def __init__(
        self,
        registry: CollectorRegistry,
        *,
        max_groups: int = 1_000,
        group_idle_s: float = 3_600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._max_groups = max_groups
        self._group_idle_s = group_idle_s
        self._clock = clock
        # group id -> when it was last answered or read, least recently first.
        self._groups: OrderedDict[str, float] = OrderedDict()
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

    def track_groups(self, group_ids: Iterable[str]) -> None:
        """Start the counters of groups not seen before at 0, one series per strategy;
        the groups are used now (their series do not expire yet)."""
        now = self._clock()
        for group_id in group_ids:
            if group_id not in self._groups:
                for strategy in STRATEGIES:
                    self.requests.labels(group_id, strategy)
                self.moved.labels(group_id)
            self._groups[group_id] = now
            self._groups.move_to_end(group_id)
        while len(self._groups) > self._max_groups:
            self.forget(next(iter(self._groups)))
        self.expire_idle()

    async def refreshed(self, refresh: Refresh) -> None:
        """As a refresh listener of the lag view: the groups it read are known from now on."""
        self.track_groups(s.group_id for s in refresh.fresh)

    async def close(self) -> None:
        """Nothing to finish."""

    def observe_answer(self, answer: Answer, seconds: float) -> None:
        group = answer.group_id
        self.track_groups((group,))
        self.requests.labels(group, answer.strategy).inc()
        self.duration.observe(seconds)
        self.imbalance.labels(group).set(answer.stats.imbalance)
        self.moved.labels(group).inc(answer.stats.moved)

    def expire_idle(self) -> None:
        """Remove the series of groups neither answered nor read for ``group_idle_s``."""
        oldest_kept = self._clock() - self._group_idle_s
        while self._groups:
            group, used = next(iter(self._groups.items()))
            if used > oldest_kept:
                return
            self.forget(group)

    def forget(self, group: str) -> None:
        """Remove every series labelled with ``group``."""
        del self._groups[group]
        for strategy in STRATEGIES:
            self.requests.remove(group, strategy)
        self.moved.remove(group)
        self.imbalance.remove(group)  # nothing to remove when the group had no answer

    def observe_failure(self, reason: str, seconds: float | None = None) -> None:
        self.failures.labels(reason).inc()
        if seconds is not None:
            self.duration.observe(seconds)
