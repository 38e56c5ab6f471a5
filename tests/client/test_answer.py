"""Checking the sidecar's answer against the leader's own metadata, one rule at a time."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lagassign_client.answer import read_answer
from lagassign_client.errors import InvalidAnswer, MalformedAnswer
from lagassign_client.group import GroupView, Subscriber
from lagassign_client.userdata import SubscriptionUserData
from tests.client.answers import giving_a_partition_twice, missing_a_partition, roundrobin_answer

NOTHING = SubscriptionUserData()
VIEW = GroupView(
    group_id="orders",
    subscribers=(
        Subscriber("c-1", ("t0", "t1"), NOTHING),
        Subscriber("c-2", ("t0",), NOTHING),
        Subscriber("c-3", ("t0", "unknown"), NOTHING),
    ),
    partitions={"t0": 4, "t1": 2},
)


def answer(assignment: dict[str, dict[str, list[int]]], **extra: Any) -> bytes:
    return json.dumps({"group_id": "orders", "assignment": assignment, **extra}).encode()


def good() -> dict[str, Any]:
    return roundrobin_answer(VIEW.request_body("balanced"))


def test_a_valid_answer_is_used_as_given() -> None:
    checked = read_answer(json.dumps(good()).encode(), VIEW)
    assert checked.assignment == {
        "c-1": {"t0": [0, 3], "t1": [0, 1]},
        "c-2": {"t0": [1]},
        "c-3": {"t0": [2]},
    }
    assert checked.strategy == "balanced"


def test_a_member_may_get_nothing() -> None:
    checked = read_answer(
        answer({"c-1": {"t0": [0, 1, 2, 3], "t1": [0, 1]}, "c-2": {}, "c-3": {"t0": []}}), VIEW
    )
    assert checked.assignment == {"c-1": {"t0": [0, 1, 2, 3], "t1": [0, 1]}, "c-2": {}, "c-3": {}}


def test_partition_lists_come_out_sorted() -> None:
    checked = read_answer(
        answer({"c-1": {"t1": [1, 0], "t0": [3, 0]}, "c-2": {"t0": [1]}, "c-3": {"t0": [2]}}), VIEW
    )
    assert checked.assignment["c-1"] == {"t0": [0, 3], "t1": [0, 1]}


def test_a_member_without_known_topics_gets_nothing_and_is_not_expected() -> None:
    view = GroupView(
        "g", (Subscriber("c-1", ("t0",), NOTHING), Subscriber("c-2", ("new",), NOTHING)), {"t0": 1}
    )
    assert read_answer(answer({"c-1": {"t0": [0]}}), view).assignment == {
        "c-1": {"t0": [0]},
        "c-2": {},
    }


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"<html>502 Bad Gateway</html>",
        b'{"assignment": ',
        b"[]",
        b'{"group_id": "orders"}',
        b'{"assignment": []}',
        b'{"assignment": {"c-1": [0, 1]}}',
        b'{"assignment": {"c-1": {"t0": "0,1"}}}',
        b'{"assignment": {"c-1": {"t0": [0, "1"]}}}',
        b'{"assignment": {"c-1": {"t0": [0, true]}}}',
        b'{"assignment": {"c-1": {"t0": [0.0]}}}',
        b'{"assignment": {}, "revoked": []}',
    ],
)
def test_malformed_answers_are_refused(raw: bytes) -> None:
    with pytest.raises(MalformedAnswer):
        read_answer(raw, VIEW)


@pytest.mark.parametrize(
    ("assignment", "problem"),
    [
        ({"c-1": {"t0": [0, 1, 2, 3], "t1": [0, 1]}, "c-2": {}}, "'c-3' is missing"),
        (
            {"c-1": {"t0": [0, 1, 2, 3], "t1": [0, 1]}, "c-2": {}, "c-3": {}, "c-9": {}},
            "unknown member 'c-9'",
        ),
        ({"c-1": {"t0": [0, 1, 2], "t1": [0, 1]}, "c-2": {}, "c-3": {}}, "t0 partitions [3]"),
        (
            {"c-1": {"t0": [0, 1, 2, 3], "t1": [0, 1]}, "c-2": {"t0": [3]}, "c-3": {}},
            "t0-3 to both 'c-1' and 'c-2'",
        ),
        ({"c-1": {"t0": [0, 0, 1, 2, 3], "t1": [0, 1]}, "c-2": {}, "c-3": {}}, "t0-0 to both"),
        (
            {"c-1": {"t0": [0, 1, 2, 3]}, "c-2": {"t1": [0, 1]}, "c-3": {}},
            "'t1' to 'c-2', not subscribed",
        ),
        (
            {"c-1": {"t0": [0, 1, 2, 3], "t1": [0, 1, 2]}, "c-2": {}, "c-3": {}},
            "unknown partition t1-2",
        ),
        (
            {"c-1": {"t0": [-1, 0, 1, 2, 3], "t1": [0, 1]}, "c-2": {}, "c-3": {}},
            "unknown partition t0--1",
        ),
        (
            {"c-1": {"t0": [0, 1, 2, 3], "t1": [0, 1]}, "c-2": {}, "c-3": {"unknown": [0]}},
            "unknown topic 'unknown'",
        ),
    ],
    ids=[
        "member-missing",
        "unknown-member",
        "partition-missing",
        "partition-twice",
        "partition-twice-same-member",
        "not-subscribed",
        "partition-beyond-count",
        "negative-partition",
        "topic-without-metadata",
    ],
)
def test_invalid_answers_are_refused(
    assignment: dict[str, dict[str, list[int]]], problem: str
) -> None:
    with pytest.raises(InvalidAnswer, match=problem.replace("[", r"\[").replace("]", r"\]")):
        read_answer(answer(assignment), VIEW)


def test_the_test_builders_break_an_answer_as_they_say() -> None:
    with pytest.raises(InvalidAnswer, match="unassigned"):
        read_answer(json.dumps(missing_a_partition(good())).encode(), VIEW)
    with pytest.raises(InvalidAnswer, match="to both"):
        read_answer(json.dumps(giving_a_partition_twice(good())).encode(), VIEW)


def test_withheld_partitions_are_refused_in_an_eager_rebalance() -> None:
    body = good()
    body["revoked"] = {"c-1": {"t0": [0]}}
    with pytest.raises(InvalidAnswer, match="revoked"):
        read_answer(json.dumps(body).encode(), VIEW)


def test_an_empty_revoked_map_is_fine() -> None:
    body = good()
    body["revoked"] = {"c-1": {"t0": []}}
    assert read_answer(json.dumps(body).encode(), VIEW).assignment["c-2"] == {"t0": [1]}
