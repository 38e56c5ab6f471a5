"""Subscription and assignment user data: the JSON both shims write and read."""

from __future__ import annotations

import json

import pytest

from lagassign_client.wire.userdata import (
    AssignmentUserData,
    SubscriptionUserData,
    decode_assignment,
    decode_subscription,
)


def test_subscription_user_data_is_the_documented_json() -> None:
    data = SubscriptionUserData(
        owned={"t1": (3,), "t0": (2, 0)}, generation=7, instance_id="web-1", rack="a"
    )
    assert json.loads(data.encode()) == {
        "v": 1,
        "owned": {"t0": [0, 2], "t1": [3]},
        "generation": 7,
        "instance_id": "web-1",
        "rack": "a",
    }


def test_a_new_member_sends_nulls_and_nothing_owned() -> None:
    assert json.loads(SubscriptionUserData().encode()) == {
        "v": 1,
        "owned": {},
        "generation": None,
        "instance_id": None,
        "rack": None,
    }


def test_subscription_user_data_round_trips() -> None:
    data = SubscriptionUserData(owned={"t0": (0, 2)}, generation=3, instance_id="i", rack=None)
    assert decode_subscription(data.encode()) == data


@pytest.mark.parametrize(
    "raw",
    [None, b"", b"\xff\xfe", b"not json", b"[1, 2]", b'"text"', b"{}"],
    ids=["none", "empty", "not-utf8", "not-json", "array", "string", "empty-object"],
)
def test_unreadable_subscription_user_data_reads_as_nothing_known(raw: bytes | None) -> None:
    assert decode_subscription(raw) == SubscriptionUserData()


def test_wrongly_typed_fields_are_dropped_one_by_one() -> None:
    raw = json.dumps(
        {
            "v": 1,
            "owned": {"t0": [1, "2", -1, True, 0, 1], "t1": "x", "t2": []},
            "generation": "7",
            "instance_id": 5,
            "rack": "b",
        }
    ).encode()
    assert decode_subscription(raw) == SubscriptionUserData(owned={"t0": (0, 1)}, rack="b")


def test_assignment_user_data_says_who_made_it() -> None:
    by_sidecar = AssignmentUserData(by="sidecar", strategy="balanced")
    by_range = AssignmentUserData(by="range", reason="timeout")
    assert json.loads(by_sidecar.encode()) == {"v": 1, "by": "sidecar", "strategy": "balanced"}
    assert json.loads(by_range.encode()) == {"v": 1, "by": "range", "reason": "timeout"}
    assert decode_assignment(by_sidecar.encode()) == by_sidecar
    assert decode_assignment(by_range.encode()) == by_range


@pytest.mark.parametrize("raw", [None, b"", b"{}", b'{"by": "someone"}', b"junk"])
def test_an_assignment_without_our_note_reads_as_none(raw: bytes | None) -> None:
    assert decode_assignment(raw) is None
