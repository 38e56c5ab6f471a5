"""Decoding what DescribeGroups returns: member assignments and the group entry."""

from __future__ import annotations

import pytest
from aiokafka.coordinator.protocol import ConsumerProtocolMemberAssignment  # type: ignore[import-untyped]

from lagassign.lagview.kafka.groups import decode_assignment, describe_answer
from lagassign.lagview.snapshot import MemberDescription


def assignment_bytes(topics: dict[str, list[int]]) -> bytes:
    encoded: bytes = ConsumerProtocolMemberAssignment(0, sorted(topics.items()), b"").encode()
    return encoded


def test_assignment_decodes_to_sorted_partitions_per_topic() -> None:
    data = assignment_bytes({"b": [3, 1], "a": [0]})
    assert decode_assignment(data) == {"a": (0,), "b": (1, 3)}


def test_empty_assignment_bytes_mean_no_assignment() -> None:
    assert decode_assignment(b"") == {}
    assert decode_assignment(None) == {}


def test_bytes_that_are_not_an_assignment_are_refused() -> None:
    with pytest.raises(ValueError, match="not a consumer-protocol assignment"):
        decode_assignment(b"\x00\x00\x00\x00\x00\x05\x00")


def test_group_entry_members_sorted_and_assignments_decoded() -> None:
    raw = (
        0,
        "g",
        "Stable",
        "consumer",
        "range",
        [
            ("m-2", None, "c-2", "/10.0.0.2", b"", assignment_bytes({"t": [1]})),
            ("m-1", "static-1", "c-1", "/10.0.0.1", b"", assignment_bytes({"t": [0, 2]})),
        ],
    )
    described = describe_answer("g", raw)
    assert described.state == "Stable"
    assert described.assignment_strategy == "range"
    assert described.members == (
        MemberDescription("m-1", "static-1", "c-1", "/10.0.0.1", {"t": (0, 2)}),
        MemberDescription("m-2", None, "c-2", "/10.0.0.2", {"t": (1,)}),
    )


def test_group_entry_of_a_non_consumer_protocol_has_no_assignment() -> None:
    raw = (0, "g", "", "connect", "", [("w-1", None, "c", "/h", b"", b"\x01\x02")])
    described = describe_answer("g", raw)
    assert described.state is None
    assert described.assignment_strategy is None
    assert described.members[0].assignment == {}
