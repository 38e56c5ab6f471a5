"""The Prometheus collector of the shim's decisions, in the application's own registry."""

from __future__ import annotations

import json

import httpx
import prometheus_client
from prometheus_client import CollectorRegistry, generate_latest

from lagassign_client import LagAssignor
from lagassign_client.metrics import DecisionCollector
from lagassign_client.wire.group import Subscriber
from lagassign_client.wire.userdata import SubscriptionUserData
from tests.client.answers import NO_LAG, roundrobin_answer

MEMBERS = [Subscriber("c-1", ("t0",), SubscriptionUserData())]
METADATA = {"t0": {0, 1}}


def assignor(outcomes: list[str]) -> LagAssignor:
    """An assignor whose sidecar answers ``ok``, ``blind`` or ``500`` in turn."""
    queue = iter(outcomes)

    def handler(request: httpx.Request) -> httpx.Response:
        outcome = next(queue)
        if outcome == "500":
            return httpx.Response(500, text="no")
        lag = NO_LAG if outcome == "blind" else None
        return httpx.Response(200, json=roundrobin_answer(json.loads(request.content), lag))

    return LagAssignor(
        url="http://sidecar.test", group_id="orders", transport=httpx.MockTransport(handler)
    )


def sample(registry: CollectorRegistry, name: str, **labels: str) -> float | None:
    return registry.get_sample_value(name, labels)


def test_decisions_are_counted_by_outcome_and_reason() -> None:
    registry = CollectorRegistry()
    first, second = assignor(["ok", "blind", "500"]), assignor(["ok"])
    collector = DecisionCollector(registry, first)
    collector.watch(second)
    for _ in range(3):
        first.leader.decide(MEMBERS, METADATA.get)
    second.leader.decide(MEMBERS, METADATA.get)

    total = "lagassign_client_decisions_total"
    assert sample(registry, total, group="orders", outcome="sidecar", reason="ok") == 2
    assert sample(registry, total, group="orders", outcome="sidecar", reason="lag_blind") == 1
    assert sample(registry, total, group="orders", outcome="range", reason="status") == 1
    # Known outcomes that did not happen are exported at 0, so alerts see a series.
    assert sample(registry, total, group="orders", outcome="range", reason="timeout") == 0
    assert sample(registry, total, group="orders", outcome="sidecar", reason="lag_partial") == 0
    dropped = "lagassign_client_dropped_assignments_total"
    assert sample(registry, dropped, group="orders") == 0
    seconds = sample(registry, "lagassign_client_last_decision_seconds", group="orders")
    assert seconds is not None
    assert seconds >= 0
    assert b"lagassign_client_decisions_total" in generate_latest(registry)


def test_the_global_registry_is_left_alone() -> None:
    before = set(prometheus_client.REGISTRY._collector_to_names)
    DecisionCollector(CollectorRegistry(), assignor([]))
    assert set(prometheus_client.REGISTRY._collector_to_names) == before
    assert (
        prometheus_client.REGISTRY.get_sample_value(
            "lagassign_client_decisions_total",
            {"group": "orders", "outcome": "sidecar", "reason": "ok"},
        )
        is None
    )
