"""Prometheus counters of the shim's decisions, for the application's own registry.

Needs ``prometheus-client`` (``pip install 'lagassign-client[metrics]'``); the rest
of the shim does not import it. The collector reads the assignors' own counters
when the registry is scraped, so it costs nothing between scrapes::

    from prometheus_client import CollectorRegistry
    from lagassign_client.metrics import DecisionCollector

    registry = CollectorRegistry()          # or the registry the application serves
    DecisionCollector(registry, assignor)   # more assignors: .watch(other)

Series (``group`` is the consumer group; every known ``outcome``/``reason`` pair of a
watched group is exported, at 0 until it happens):

- ``lagassign_client_decisions_total{group, outcome, reason}``: rebalances this
  process led. ``outcome="sidecar"`` with ``reason`` ``ok``, ``lag_blind`` or
  ``lag_partial``; ``outcome="range"`` (the fallback) with ``reason`` ``timeout``,
  ``unknown_host``, ``connection_refused``, ``unreachable``, ``status``,
  ``malformed``, ``invalid`` or ``metadata``.
- ``lagassign_client_dropped_assignments_total{group}``: leader assignments
  kafka-python did not apply (the ``poll()`` running the rebalance ended first).
- ``lagassign_client_last_decision_seconds{group}``: how long the last decision took.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

from lagassign_client.assignor.shim import ShimAssignor
from lagassign_client.errors import BLIND_REASONS, FALLBACK_REASONS

OK = "ok"
OUTCOMES: tuple[tuple[str, str], ...] = (
    *(("sidecar", r) for r in (OK, *BLIND_REASONS)),
    *(("range", r) for r in FALLBACK_REASONS),
)


class DecisionCollector(Collector):
    """Exports the decisions of the watched assignors; registers itself in ``registry``."""

    def __init__(self, registry: CollectorRegistry, *assignors: ShimAssignor) -> None:
        self._lock = threading.Lock()
        self._assignors: list[ShimAssignor] = []
        for assignor in assignors:
            self.watch(assignor)
        registry.register(self)

    def watch(self, assignor: ShimAssignor) -> None:
        """Add one consumer's assignor (each consumer of the group has its own)."""
        with self._lock:
            if all(a is not assignor for a in self._assignors):
                self._assignors.append(assignor)

    def _watched(self) -> Iterable[ShimAssignor]:
        with self._lock:
            return tuple(self._assignors)

    def collect(self) -> Iterator[Metric]:
        decisions = CounterMetricFamily(
            "lagassign_client_decisions",
            "Rebalances this process led, by who assigned (sidecar or the range fallback) and why.",
            labels=("group", "outcome", "reason"),
        )
        dropped = CounterMetricFamily(
            "lagassign_client_dropped_assignments",
            "Leader assignments the client library did not apply (kafka-python: the"
            " poll() running the rebalance ended first).",
            labels=("group",),
        )
        last = GaugeMetricFamily(
            "lagassign_client_last_decision_seconds",
            "How long the last decision this process led took.",
            labels=("group",),
        )
        counts: dict[str, dict[tuple[str, str], int]] = {}
        drops: dict[str, int] = {}
        latest: dict[str, float] = {}
        for assignor in self._watched():
            group = assignor.leader.group_id
            per_group = counts.setdefault(group, dict.fromkeys(OUTCOMES, 0))
            for (assigned_by, why), n in assignor.leader.decisions.items():
                key = (str(assigned_by), why or OK)
                per_group[key] = per_group.get(key, 0) + n
            drops[group] = drops.get(group, 0) + assignor.dropped_assignments
            decision = assignor.last_decision
            if decision is not None:
                latest[group] = decision.seconds
        for group, per_group in sorted(counts.items()):
            for (by, reason), n in sorted(per_group.items()):
                decisions.add_metric((group, by, reason), n)
            dropped.add_metric((group,), drops[group])
        for group, seconds in sorted(latest.items()):
            last.add_metric((group,), seconds)
        yield decisions
        yield dropped
        yield last
