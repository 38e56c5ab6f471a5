"""Metrics of the answers ``POST /assign`` gives (and of the requests it refuses)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from lagassign.assign.answer import Answer

# 1 ms to 5 s: a rebalance waits on this, and the shims give up at 1.5 s.
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


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

    def observe_answer(self, answer: Answer, seconds: float) -> None:
        self.requests.labels(answer.group_id, answer.strategy).inc()
        self.duration.observe(seconds)
        self.imbalance.labels(answer.group_id).set(answer.stats.imbalance)
        self.moved.labels(answer.group_id).inc(answer.stats.moved)

    def observe_failure(self, reason: str, seconds: float | None = None) -> None:
        self.failures.labels(reason).inc()
        if seconds is not None:
            self.duration.observe(seconds)
