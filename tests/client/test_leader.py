"""The leader's decision: the sidecar's checked answer, or a counted, logged fallback."""

from __future__ import annotations

import logging
import threading
import time

import httpx
import pytest

from lagassign_client.assignor.leader import GroupLeader
from lagassign_client.wire.group import Subscriber
from lagassign_client.wire.sidecar import Sidecar
from lagassign_client.wire.userdata import SubscriptionUserData
from tests.client.answers import as_lists
from tests.client.mock_sidecar import FAULT_CASES, FAULTS, Handler, answering, holding_back

METADATA = {"t0": {0, 1, 2, 3}, "t1": {0, 1}}
MEMBERS = (
    Subscriber("c-1", ("t0", "t1"), SubscriptionUserData(owned={"t0": (0,)}, generation=4)),
    Subscriber("c-2", ("t0", "t1"), SubscriptionUserData(instance_id="web-2")),
)


def leader(
    handler: Handler, timeout_s: float = 1.0, strategy: str | None = "balanced"
) -> GroupLeader:
    sidecar = Sidecar(
        "http://sidecar.test", timeout_s=timeout_s, transport=httpx.MockTransport(handler)
    )
    return GroupLeader(sidecar, "orders", strategy)


def test_a_healthy_sidecar_decides() -> None:
    requests: list[dict[str, object]] = []
    chief = leader(answering(requests))
    assignment, decision = chief.decide(MEMBERS, METADATA.get)
    assert assignment is not None
    assert as_lists(assignment) == {
        "c-1": {"t0": [0, 2], "t1": [0]},
        "c-2": {"t0": [1, 3], "t1": [1]},
    }
    assert (decision.by, decision.strategy, decision.reason) == ("sidecar", "balanced", None)
    assert chief.answers == 1
    assert chief.fallbacks == {}
    assert chief.last_decision == decision
    (request,) = requests
    assert request["group_id"] == "orders"
    assert request["strategy"] == "balanced"
    assert request["partitions"] == {"t0": 4, "t1": 2}


@pytest.mark.parametrize(("handler", "reason"), FAULT_CASES)
def test_each_fault_falls_back_once_with_its_reason(
    handler: Handler, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    chief = leader(handler)
    with caplog.at_level(logging.WARNING, logger="lagassign_client"):
        assignment, decision = chief.decide(MEMBERS, METADATA.get)
    assert assignment is None
    assert (decision.by, decision.reason) == ("range", reason)
    assert chief.fallbacks == {reason: 1}
    assert chief.answers == 0
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert f"group orders falls back to the range assignor ({reason})" in record.getMessage()


def test_a_slow_sidecar_falls_back_at_the_deadline(caplog: pytest.LogCaptureFixture) -> None:
    release = threading.Event()
    chief = leader(holding_back(release), timeout_s=0.2)
    try:
        with caplog.at_level(logging.WARNING, logger="lagassign_client"):
            assignment, decision = chief.decide(MEMBERS, METADATA.get)
    finally:
        release.set()
    assert assignment is None
    assert decision.reason == "timeout"
    assert 0.2 <= decision.seconds < 2.0  # the deadline, not the sidecar's 10 s
    assert len(caplog.records) == 1


def test_incomplete_metadata_falls_back_without_asking() -> None:
    requests: list[dict[str, object]] = []
    chief = leader(answering(requests))
    assignment, decision = chief.decide(MEMBERS, {"t0": {0, 2}, "t1": {0, 1}}.get)
    assert assignment is None
    assert decision.reason == "metadata"
    assert requests == []


def test_fallbacks_are_counted_by_reason_over_many_rebalances() -> None:
    outcomes = iter(["ok", "stopped", "http-500", "stopped", "ok"])

    def handler(request: httpx.Request) -> httpx.Response:
        fault = next(outcomes)
        return answering()(request) if fault == "ok" else FAULTS[fault][0](request)

    chief = leader(handler)
    for _ in range(5):
        chief.decide(MEMBERS, METADATA.get)
    assert chief.fallbacks == {"connection_refused": 2, "status": 1}
    assert chief.answers == 2


def test_the_decision_time_is_measured() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        time.sleep(0.05)
        return answering()(request)

    _, decision = leader(handler).decide(MEMBERS, METADATA.get)
    assert decision.seconds >= 0.05
