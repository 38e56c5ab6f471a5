"""The aiokafka shim, with aiokafka's own wire structs and range assignor."""

from __future__ import annotations

import logging
import threading
from typing import Any

import httpx
import pytest
from aiokafka.coordinator.assignors.range import RangePartitionAssignor  # type: ignore[import-untyped]
from aiokafka.coordinator.protocol import ConsumerProtocol  # type: ignore[import-untyped]

from lagassign_client import LagAssignor
from lagassign_client.wire.userdata import decode_assignment
from tests.client.cluster_stub import PartitionsByTopic
from tests.client.mock_sidecar import FAULT_CASES, Handler, answering, holding_back

CLUSTER = PartitionsByTopic({"t0": 4, "t1": 3})


def shim(handler: Handler, timeout_s: float = 1.0, **settings: Any) -> LagAssignor:
    return LagAssignor(
        url="http://sidecar.test",
        group_id="orders",
        timeout_s=timeout_s,
        transport=httpx.MockTransport(handler),
        **settings,
    )


def joined(*members: tuple[str, LagAssignor, list[str]]) -> dict[str, Any]:
    """What the leader decodes from JoinGroup: each member's metadata, through the wire."""
    return {
        member_id: ConsumerProtocol.METADATA.decode(assignor.metadata(topics).encode())
        for member_id, assignor, topics in members
    }


def partitions_of(assignments: dict[str, Any]) -> dict[str, list[tuple[str, int]]]:
    return {
        m: sorted((tp.topic, tp.partition) for tp in a.partitions()) for m, a in assignments.items()
    }


def group(handler: Handler, **settings: Any) -> tuple[LagAssignor, dict[str, Any]]:
    leader = shim(handler, **settings)
    members = joined(
        ("c-1", leader, ["t0", "t1"]),
        ("c-2", shim(handler), ["t0", "t1"]),
        ("c-3", shim(handler), ["t0"]),
    )
    return leader, members


def test_the_protocol_is_named_lagassign() -> None:
    assert shim(answering()).name == "lagassign"


def test_the_sidecars_answer_becomes_the_assignment() -> None:
    requests: list[dict[str, Any]] = []
    leader, members = group(answering(requests))
    assignments = leader.assign(CLUSTER, members)
    assert partitions_of(assignments) == {
        "c-1": [("t0", 0), ("t0", 3), ("t1", 0), ("t1", 2)],
        "c-2": [("t0", 1), ("t1", 1)],
        "c-3": [("t0", 2)],
    }
    for encoded in assignments.values():
        decoded = ConsumerProtocol.ASSIGNMENT.decode(encoded.encode())
        note = decode_assignment(decoded.user_data)
        assert note is not None
        assert note.by == "sidecar"
    assert leader.answers == 1
    assert [m["member_id"] for m in requests[0]["members"]] == ["c-1", "c-2", "c-3"]


@pytest.mark.parametrize(("handler", "reason"), FAULT_CASES)
def test_a_fault_gives_exactly_aiokafkas_range(
    handler: Handler, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    leader, members = group(handler)
    with caplog.at_level(logging.WARNING, logger="lagassign_client"):
        assignments = leader.assign(CLUSTER, members)
    assert partitions_of(assignments) == partitions_of(
        RangePartitionAssignor.assign(CLUSTER, members)
    )
    assert leader.fallbacks == {reason: 1}
    assert len(caplog.records) == 1
    for encoded in assignments.values():
        note = decode_assignment(ConsumerProtocol.ASSIGNMENT.decode(encoded.encode()).user_data)
        assert note is not None
        assert (note.by, note.reason) == ("range", reason)


def test_a_slow_sidecar_gives_range_at_the_deadline() -> None:
    release = threading.Event()
    leader, members = group(holding_back(release), timeout_s=0.2)
    try:
        assignments = leader.assign(CLUSTER, members)
    finally:
        release.set()
    assert partitions_of(assignments) == partitions_of(
        RangePartitionAssignor.assign(CLUSTER, members)
    )
    assert leader.fallbacks == {"timeout": 1}


def test_owned_partitions_and_static_id_travel_in_the_user_data() -> None:
    requests: list[dict[str, Any]] = []
    member = shim(answering(requests), instance_id="web-1", rack="rack-a")
    first = member.assign(CLUSTER, joined(("c-1", member, ["t0"])))
    member.on_assignment(ConsumerProtocol.ASSIGNMENT.decode(first["c-1"].encode()))
    assert member.assigned_by is not None
    assert member.assigned_by.by == "sidecar"
    member.assign(CLUSTER, joined(("c-1", member, ["t0"])))
    assert requests[1]["subscriptions"] == [["t0"]]
    assert requests[1]["members"] == [
        {
            "member_id": "c-1",
            "group_instance_id": "web-1",
            "subscription": 0,
            "owned": {"t0": [0, 1, 2, 3]},
            "generation": None,
            "rack": "rack-a",
        }
    ]


def test_a_member_running_another_shim_version_is_still_assigned() -> None:
    leader = shim(answering())
    members = joined(("c-1", leader, ["t0"]))
    members["c-2"] = ConsumerProtocol.METADATA(0, ["t0"], b"not our json")
    assert partitions_of(leader.assign(CLUSTER, members)) == {
        "c-1": [("t0", 0), ("t0", 2)],
        "c-2": [("t0", 1), ("t0", 3)],
    }


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        ({"group_id": ""}, "group_id"),
        ({"strategy": "fastest"}, "strategy must be one of"),
        ({"timeout_s": 0}, "timeout_s"),
        ({"url": "localhost:8321"}, "url"),
    ],
)
def test_bad_settings_are_refused_when_the_consumer_is_built(
    settings: dict[str, Any], problem: str
) -> None:
    arguments: dict[str, Any] = {"url": "http://127.0.0.1:8321", "group_id": "orders"}
    with pytest.raises(ValueError, match=problem):
        LagAssignor(**{**arguments, **settings})


def test_the_request_names_the_configured_strategy() -> None:
    requests: list[dict[str, Any]] = []
    leader = shim(answering(requests), strategy="lag-aware")
    leader.assign(CLUSTER, joined(("c-1", leader, ["t0"])))
    assert requests[0]["strategy"] == "lag-aware"
    assert requests[0]["protocol"] == "eager"
