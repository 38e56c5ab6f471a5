"""The shim over real HTTP on 127.0.0.1: each fault of a misbehaving sidecar, and a stopped one."""

from __future__ import annotations

import gc
import warnings
from pathlib import Path

import pytest

from harness.lone_sidecar import start_lone_sidecar
from lagassign_client.assignor.leader import GroupLeader
from lagassign_client.wire.group import Subscriber
from lagassign_client.wire.sidecar import Sidecar
from lagassign_client.wire.userdata import SubscriptionUserData
from tests.client.answers import as_lists
from tests.client.faulty_sidecar import FAULTS, Fault, FaultySidecar

METADATA = {"t0": {0, 1, 2, 3}, "t1": {0, 1, 2}}
MEMBERS = (
    Subscriber("c-1", ("t0", "t1"), SubscriptionUserData()),
    Subscriber("c-2", ("t0", "t1"), SubscriptionUserData()),
)
REASONS: dict[Fault, str] = {
    "slow": "timeout",
    "status-500": "status",
    "malformed-json": "malformed",
    "missing-partition": "invalid",
    "partition-twice": "invalid",
}


def leader_of(url: str) -> GroupLeader:
    return GroupLeader(Sidecar(url, timeout_s=0.5), "orders", None)


def test_a_healthy_sidecar_is_used() -> None:
    sidecar = FaultySidecar().start()
    try:
        assignment, decision = leader_of(sidecar.url).decide(MEMBERS, METADATA.get)
    finally:
        sidecar.stop()
    assert decision.by == "sidecar"
    assert assignment is not None
    assert as_lists(assignment) == {
        "c-1": {"t0": [0, 2], "t1": [0, 2]},
        "c-2": {"t0": [1, 3], "t1": [1]},
    }


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_is_a_fallback_with_its_reason(fault: Fault) -> None:
    sidecar = FaultySidecar(slow_s=5.0).start()
    sidecar.fault = fault
    try:
        chief = leader_of(sidecar.url)
        assignment, decision = chief.decide(MEMBERS, METADATA.get)
    finally:
        sidecar.stop()
    assert assignment is None
    assert decision.reason == REASONS[fault]
    assert chief.fallbacks == {REASONS[fault]: 1}
    assert sidecar.requests == 1


def test_a_stopped_sidecar_is_unreachable_even_after_serving() -> None:
    sidecar = FaultySidecar().start()
    chief = leader_of(sidecar.url)
    first, _ = chief.decide(MEMBERS, METADATA.get)
    sidecar.stop()
    second, decision = chief.decide(MEMBERS, METADATA.get)
    assert first is not None
    assert second is None
    assert decision.reason == "connection_refused"


def test_a_stopped_sidecar_can_start_again_on_the_same_port() -> None:
    sidecar = FaultySidecar().start()
    url = sidecar.url
    chief = leader_of(url)
    sidecar.stop()
    _, down = chief.decide(MEMBERS, METADATA.get)
    sidecar.start()
    try:
        assignment, up = chief.decide(MEMBERS, METADATA.get)
    finally:
        sidecar.stop()
    assert sidecar.url == url
    assert down.reason == "connection_refused"
    assert up.by == "sidecar"
    assert assignment is not None


def test_a_leader_dropped_without_close_leaves_no_connection_open(tmp_path: Path) -> None:
    # aiokafka and kafka-python never call an assignor's close(): a leader that is simply
    # dropped must not leave its kept-alive connection to a real sidecar open.
    sidecar = start_lone_sidecar({}, tmp_path / "sidecar.log")
    try:
        chief = leader_of(sidecar.url)
        _, decision = chief.decide(MEMBERS, METADATA.get)
        assert decision.by == "sidecar", decision
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ResourceWarning)
            del chief
            gc.collect()
    finally:
        sidecar.stop()
    # only this sidecar's connections: the collection may find other tests' leftovers
    port = sidecar.url.rsplit(":", 1)[1]
    unclosed = [
        str(w.message)
        for w in caught
        if issubclass(w.category, ResourceWarning) and f"'127.0.0.1', {port})" in str(w.message)
    ]
    assert unclosed == []
