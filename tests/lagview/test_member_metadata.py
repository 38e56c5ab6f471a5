"""The consumer protocol's subscription and assignment bytes, as DescribeGroups returns them."""

from __future__ import annotations

import contextlib

import pytest
from aiokafka.coordinator.protocol import (  # type: ignore[import-untyped]
    ConsumerProtocolMemberAssignment,
    ConsumerProtocolMemberMetadata,
)
from hypothesis import given
from hypothesis import strategies as st

from lagassign.lagview.kafka.groups import describe_answer
from lagassign.lagview.member_metadata import (
    MemberAssignment,
    Subscription,
    decode_member_assignment,
    decode_subscription,
    encode_member_assignment,
    encode_subscription,
)


def test_every_version_of_the_subscription_reads_its_own_fields() -> None:
    owned = {"t1": (3,), "t0": (2, 0)}
    for version, expected in [
        (0, Subscription(("t0", "t1"), b"ud")),
        (1, Subscription(("t0", "t1"), b"ud", {"t0": (0, 2), "t1": (3,)})),
        (2, Subscription(("t0", "t1"), b"ud", {"t0": (0, 2), "t1": (3,)}, 9)),
        (3, Subscription(("t0", "t1"), b"ud", {"t0": (0, 2), "t1": (3,)}, 9, "rack-a")),
    ]:
        raw = encode_subscription(
            ["t1", "t0"], b"ud", owned, generation=9, rack="rack-a", version=version
        )
        assert decode_subscription(raw) == expected, version


def test_null_user_data_no_generation_and_no_rack_read_as_unknown() -> None:
    raw = encode_subscription(["t"], None, {}, generation=-1, rack=None)
    assert decode_subscription(raw) == Subscription(("t",), None)


def test_a_later_version_is_read_by_its_version_3_fields() -> None:
    raw = encode_subscription(["t"], b"x", {"t": [1]}, generation=4, rack="r", version=3)
    later = b"\x00\x04" + raw[2:] + b"\x00\x00\x00\x07"  # v4 with a field we do not know
    assert decode_subscription(later) == Subscription(("t",), b"x", {"t": (1,)}, 4, "r")


def test_what_aiokafka_and_kafka_python_send_is_read() -> None:
    # aiokafka and kafka-python send version 0: topics and user data.
    raw = ConsumerProtocolMemberMetadata(0, ["b", "a"], b'{"v":1}').encode()
    assert decode_subscription(raw) == Subscription(("a", "b"), b'{"v":1}')
    given_bytes = ConsumerProtocolMemberAssignment(0, [("a", [2, 0])], b"note").encode()
    assert decode_member_assignment(given_bytes) == MemberAssignment({"a": (0, 2)}, b"note")


def test_an_assignment_round_trips() -> None:
    raw = encode_member_assignment({"t": [5, 1], "u": []}, None, version=3)
    assert decode_member_assignment(raw) == MemberAssignment({"t": (1, 5)}, None)


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00",
        b"\xff\xff\x00\x00\x00\x00",  # negative version
        b"\x00\x00\x00\x00\x00\x05\x00",  # five topics in one byte
        b"\x00\x00\x00\x00\x00\x01\x00\x09ab",  # a topic name cut short
        b"\x00\x00\x00\x00\x00\x01\x00\x02\xff\xfe\x00\x00\x00\x00",  # not UTF-8
    ],
)
def test_bytes_that_are_not_the_protocol_raise_value_error(raw: bytes) -> None:
    with pytest.raises(ValueError, match="not a consumer-protocol subscription"):
        decode_subscription(raw)
    with pytest.raises(ValueError, match="not a consumer-protocol assignment"):
        decode_member_assignment(raw)


@given(st.binary(max_size=64))
def test_any_bytes_decode_or_raise_value_error(raw: bytes) -> None:
    for decode in (decode_subscription, decode_member_assignment):
        with contextlib.suppress(ValueError):
            decode(raw)


def test_describe_reads_subscriptions_owned_partitions_and_the_shims_notes() -> None:
    leader_note = b'{"v":1,"by":"range","reason":"timeout"}'
    member_user_data = b'{"v":1,"owned":{"a":[0]},"generation":3,"instance_id":"web-2"}'
    raw = (
        0,
        "g",
        "Stable",
        "consumer",
        "lagassign",
        [
            (
                "m-1",
                None,
                "c-1",
                "/h1",
                encode_subscription(["a", "b"], member_user_data, {"a": [0]}, generation=3),
                encode_member_assignment({"a": [0], "b": [0]}, leader_note),
            ),
            ("m-2", "web-3", "c-2", "/h2", b"garbage", b"garbage"),
            (
                "m-3",
                None,
                "c-3",
                "/h3",
                encode_subscription(["a"], b'{"v":1,"generation":5}', version=0),
                b"",
            ),
        ],
    )
    first, second, third = describe_answer("g", raw).members
    # Version 0 (aiokafka, kafka-python) has no generation: the shim's user data does.
    assert (third.generation, third.subscribed_topics, third.assignment) == (5, ("a",), {})
    assert first.subscribed_topics == ("a", "b")
    assert first.owned == {"a": (0,)}
    assert first.generation == 3
    # DescribeGroups before v4 gives no instance id: the shim's user data does.
    assert first.group_instance_id == "web-2"
    assert first.assignment == {"a": (0,), "b": (0,)}
    assert first.note is not None
    assert (first.note.by, first.note.reason, first.note.fallback) == ("range", "timeout", True)
    # Bytes that do not decode leave the member known but its parts empty.
    assert (second.group_instance_id, second.subscribed_topics, second.note) == ("web-3", (), None)
    assert second.assignment == {}
