"""The kafka-python 3 shim, with kafka-python's own wire structs, ABC and range assignor."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest
from kafka.coordinator.assignors.abstract import AbstractPartitionAssignor, RebalanceProtocol  # type: ignore[import-untyped]
from kafka.coordinator.assignors.range import RangePartitionAssignor  # type: ignore[import-untyped]
from kafka.protocol.consumer.group import JoinGroupResponse  # type: ignore[import-untyped]
from kafka.protocol.consumer.metadata import (  # type: ignore[import-untyped]
    ConsumerProtocolAssignment,
    ConsumerProtocolSubscription,
)

from lagassign_client.kafka_python import KafkaPythonLagAssignor
from lagassign_client.wire.userdata import decode_assignment
from tests.client.cluster_stub import PartitionsByTopic
from tests.client.mock_sidecar import FAULT_CASES, Handler, answering

CLUSTER = PartitionsByTopic({"t0": 4, "t1": 3})


def shim(handler: Handler, **settings: Any) -> KafkaPythonLagAssignor:
    return KafkaPythonLagAssignor(
        url="http://sidecar.test",
        group_id="orders",
        transport=httpx.MockTransport(handler),
        **settings,
    )


def joined(*members: tuple[str, str | None, KafkaPythonLagAssignor, list[str]]) -> list[Any]:
    """What kafka-python's leader hands its assignor: JoinGroup members, metadata decoded."""
    out = []
    for member_id, instance_id, assignor, topics in members:
        member = JoinGroupResponse.JoinGroupResponseMember(
            member_id=member_id,
            group_instance_id=instance_id,
            metadata=assignor.metadata(set(topics)).encode(),
        )
        member.metadata = ConsumerProtocolSubscription.decode(member.metadata)
        out.append(member)
    return out


def partitions_of(assignments: dict[str, Any]) -> dict[str, list[tuple[str, int]]]:
    return {
        m: sorted((tp.topic, tp.partition) for tp in a.partitions()) for m, a in assignments.items()
    }


def test_kafka_python_keeps_the_instance_as_its_assignor() -> None:
    assignor = shim(answering())
    assert isinstance(assignor, AbstractPartitionAssignor)
    assert assignor.supported_protocols() == [RebalanceProtocol.EAGER]
    assert assignor.name == "lagassign"


def test_the_sidecars_answer_becomes_the_assignment() -> None:
    requests: list[dict[str, Any]] = []
    leader = shim(answering(requests))
    members = joined(
        ("c-1", None, leader, ["t0", "t1"]), ("c-2", "web-2", shim(answering()), ["t0"])
    )
    assignments = leader.assign(CLUSTER, members)
    assert partitions_of(assignments) == {
        "c-1": [("t0", 0), ("t0", 2), ("t1", 0), ("t1", 1), ("t1", 2)],
        "c-2": [("t0", 1), ("t0", 3)],
    }
    assert requests[0]["members"][1]["group_instance_id"] == "web-2"
    decoded = ConsumerProtocolAssignment.decode(assignments["c-2"].encode())
    note = decode_assignment(decoded.user_data)
    assert note is not None
    assert note.by == "sidecar"


@pytest.mark.parametrize(("handler", "reason"), FAULT_CASES)
def test_a_fault_gives_exactly_kafka_pythons_range(
    handler: Handler, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    leader = shim(handler)
    members = joined(
        ("c-1", None, leader, ["t0", "t1"]), ("c-2", None, shim(handler), ["t0", "t1"])
    )
    with caplog.at_level(logging.WARNING, logger="lagassign_client"):
        assignments = leader.assign(CLUSTER, members)
    expected = RangePartitionAssignor.assign(CLUSTER, members)
    assert partitions_of(assignments) == partitions_of(expected)
    assert leader.fallbacks == {reason: 1}
    assert len(caplog.records) == 1


def test_the_generation_and_owned_partitions_reach_the_next_rebalance() -> None:
    requests: list[dict[str, Any]] = []
    member = shim(answering(requests))
    first = member.assign(CLUSTER, joined(("c-1", None, member, ["t1"])))
    member.on_assignment(ConsumerProtocolAssignment.decode(first["c-1"].encode()), 12)
    member.assign(CLUSTER, joined(("c-1", None, member, ["t1"])))
    (again,) = requests[1]["members"]
    assert again["owned"] == {"t1": [0, 1, 2]}
    assert again["generation"] == 12


def test_an_assignment_kafka_python_dropped_is_reported_and_given_again_at_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    requests: list[dict[str, Any]] = []
    leader = shim(answering(requests))
    follower = shim(answering())
    first = leader.assign(
        CLUSTER, joined(("c-1", None, leader, ["t0"]), ("c-2", None, follower, ["t0"]))
    )
    # No on_assignment for the leader: kafka-python dropped it; its next JoinGroup asks
    # the leader for its subscription again (joined() calls metadata()).
    with caplog.at_level(logging.ERROR, logger="lagassign_client"):
        members = joined(("c-1", None, leader, ["t0"]), ("c-2", None, follower, ["t0"]))
    (record,) = caplog.records
    assert "kafka-python did not apply the assignment this leader made" in record.getMessage()
    assert "Poll with a timeout_ms well above" in record.getMessage()
    again = leader.assign(CLUSTER, members)
    assert partitions_of(again) == partitions_of(first)
    assert len(requests) == 1, "the dropped assignment is given again without asking"
    assert leader.dropped_assignments == 1
    # Given once: a third rebalance asks the sidecar again.
    leader.on_assignment(ConsumerProtocolAssignment.decode(again["c-1"].encode()), 3)
    leader.assign(CLUSTER, joined(("c-1", None, leader, ["t0"]), ("c-2", None, follower, ["t0"])))
    assert len(requests) == 2


def test_a_dropped_assignment_is_not_given_to_other_members() -> None:
    requests: list[dict[str, Any]] = []
    leader = shim(answering(requests))
    leader.assign(CLUSTER, joined(("c-1", None, leader, ["t0"])))
    members = joined(("c-1", None, leader, ["t0"]), ("c-3", None, shim(answering()), ["t0"]))
    leader.assign(CLUSTER, members)
    assert len(requests) == 2


def test_an_applied_assignment_is_not_reported() -> None:
    leader = shim(answering())
    given = leader.assign(CLUSTER, joined(("c-1", None, leader, ["t0"])))
    leader.on_assignment(ConsumerProtocolAssignment.decode(given["c-1"].encode()), 1)
    joined(("c-1", None, leader, ["t0"]))
    assert leader.dropped_assignments == 0


def test_the_poll_timeout_caps_the_sidecars_deadline() -> None:
    assert shim(answering(), timeout_s=1.5, poll_timeout_ms=1000).sidecar_budget_s == 0.5
    assert shim(answering(), timeout_s=0.3, poll_timeout_ms=1000).sidecar_budget_s == 0.3
    with pytest.raises(ValueError, match="poll_timeout_ms"):
        shim(answering(), poll_timeout_ms=0)


def test_the_consumer_settings_give_group_reset_policy_and_static_id() -> None:
    requests: list[dict[str, Any]] = []
    settings = {
        "bootstrap_servers": "127.0.0.1:9092",
        "group_id": "orders",
        "auto_offset_reset": "smallest",
        "group_instance_id": "web-1",
    }
    assignor = KafkaPythonLagAssignor.for_consumer(
        "http://sidecar.test", settings, transport=httpx.MockTransport(answering(requests))
    )
    assignor.assign(CLUSTER, joined(("c-1", None, assignor, ["t0"])))
    (request,) = requests
    assert request["group_id"] == "orders"
    assert request["reset_policy"] == "earliest"
    assert request["members"][0]["group_instance_id"] == "web-1"
    with pytest.raises(ValueError, match="no group_id"):
        KafkaPythonLagAssignor.for_consumer("http://sidecar.test", {"auto_offset_reset": "latest"})
