"""Checking the sidecar's answer against the leader's own metadata, one rule at a time."""

from __future__ import annotations

import json
import random
import re
import struct
from typing import Any

import pytest

from lagassign_client import wire
from lagassign_client.answer import read_answer
from lagassign_client.errors import InvalidAnswer, MalformedAnswer
from lagassign_client.group import GroupView, Subscriber
from lagassign_client.userdata import SubscriptionUserData
from tests.client.answers import (
    as_lists,
    giving_a_partition_twice,
    in_form,
    indexed,
    missing_a_partition,
    packed,
    packed_arrays,
    roundrobin_answer,
)

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


TOPICS = ["t0", "t1", "unknown"]


@pytest.fixture(autouse=True, params=["msgspec", "json"])
def codec(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every rule holds with either codec: msgspec (the ``fast`` extra) or the standard json."""
    if request.param == "json":
        monkeypatch.setattr(wire, "loads", wire.json_loads)
        monkeypatch.setattr(wire, "CODEC", "json")
    else:
        assert wire.CODEC == "msgspec", "the tests run with the shim's fast extra installed"
    return str(request.param)


FORMS = ("topics", "indexed", "packed")


def answer(
    assignment: dict[str, dict[str, list[int]]], form: str = "topics", **extra: Any
) -> bytes:
    """An answer giving ``assignment``, in the answer form ``form``."""
    if form != "topics":
        extra["topics"] = TOPICS
    given = in_form(assignment, form, TOPICS)
    return json.dumps({"group_id": "orders", "assignment": given, **extra}).encode()


def packed_member(pairs: list[tuple[int, int]], **changes: Any) -> dict[str, Any]:
    """A packed member of these pairs (any order), its arrays then changed as given."""
    return {**packed_arrays(pairs), **changes}


def packed_answer(member: Any, topics: Any = ("t0",), **extra: Any) -> bytes:
    """A packed answer of one member ``c-1`` given ``member``."""
    return json.dumps({"topics": list(topics), "assignment": {"c-1": member}, **extra}).encode()


def good() -> dict[str, Any]:
    return roundrobin_answer(VIEW.request_body("balanced"))


def test_a_valid_answer_is_used_as_given() -> None:
    checked = read_answer(json.dumps(good()).encode(), VIEW)
    assert as_lists(checked.assignment) == {
        "c-1": {"t0": [0, 3], "t1": [0, 1]},
        "c-2": {"t0": [1]},
        "c-3": {"t0": [2]},
    }
    assert checked.strategy == "balanced"


@pytest.mark.parametrize("form", FORMS)
def test_a_member_may_get_nothing(form: str) -> None:
    given: dict[str, dict[str, list[int]]] = {
        "c-1": {"t0": [0, 1, 2, 3], "t1": [0, 1]},
        "c-2": {},
        "c-3": {"t0": []},
    }
    checked = read_answer(answer(given, form), VIEW)
    assert as_lists(checked.assignment) == {
        "c-1": {"t0": [0, 1, 2, 3], "t1": [0, 1]},
        "c-2": {},
        "c-3": {},
    }


def test_partition_lists_come_out_sorted() -> None:
    checked = read_answer(
        answer({"c-1": {"t1": [1, 0], "t0": [3, 0]}, "c-2": {"t0": [1]}, "c-3": {"t0": [2]}}), VIEW
    )
    assert as_lists(checked.assignment)["c-1"] == {"t0": [0, 3], "t1": [0, 1]}


def test_a_member_without_known_topics_gets_nothing_and_is_not_expected() -> None:
    view = GroupView(
        "g", (Subscriber("c-1", ("t0",), NOTHING), Subscriber("c-2", ("new",), NOTHING)), {"t0": 1}
    )
    assert as_lists(read_answer(answer({"c-1": {"t0": [0]}}), view).assignment) == {
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
        # the indexed form
        b'{"topics": "t0", "assignment": {}}',
        b'{"topics": ["t0", 1], "assignment": {}}',
        b'{"topics": ["t0"], "assignment": {"c-1": {"t0": [0]}}}',
        b'{"topics": ["t0"], "assignment": {"c-1": [0]}}',
        b'{"topics": ["t0"], "assignment": {"c-1": [[0]]}}',
        b'{"topics": ["t0"], "assignment": {"c-1": [[0, [0], 1]]}}',
        b'{"topics": ["t0"], "assignment": {"c-1": [[1, [0]]]}}',
        b'{"topics": ["t0"], "assignment": {"c-1": [[-1, [0]]]}}',
        b'{"topics": ["t0"], "assignment": {"c-1": [[true, [0]]]}}',
        b'{"topics": ["t0"], "assignment": {"c-1": [[0.0, [0]]]}}',
        b'{"topics": ["t0"], "assignment": {"c-1": [[0, "0"]]}}',
        b'{"topics": ["t0"], "assignment": {"c-1": [[0, [0, true]]]}}',
        b'{"topics": ["t0"], "assignment": {"c-1": [[0, [1.0]]]}}',
        b'{"topics": ["t0"], "assignment": {"c-1": [[0, [0]], [0, [1]]]}}',
        b'{"topics": ["t0"], "assignment": {"c-1": [[0, [1]], [0, [0]]]}}',
        b'{"topics": ["t0", "t0"], "assignment": {"c-1": [[0, [0]], [1, [1]]]}}',
        b'{"topics": ["t0"], "assignment": {"c-1": []}, "revoked": {"c-1": [[3, [0]]]}}',
    ],
)
def test_malformed_answers_are_refused(raw: bytes) -> None:
    with pytest.raises(MalformedAnswer):
        read_answer(raw, VIEW)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (packed_answer({"topic_indices": ""}), "is not an object of two base64"),
        (packed_answer(packed_member([(0, 0)], extra="")), "is not an object of two base64"),
        (packed_answer(packed_member([(0, 0)], partitions=7)), "is not an object of two base64"),
        (packed_answer(packed_member([(0, 0)], partitions="AAAA*AAA")), "two base64 arrays"),
        (packed_answer({"topic_indices": "AAA=", "partitions": "AAA="}), "equally many 32-bit"),
        (packed_answer(packed_member([(0, 0)], partitions="")), "equally many 32-bit"),
        (packed_answer(packed_member([(1, 0)])), "a topic index that is not in 'topics'"),
        (packed_answer(packed_member([(0, 1), (0, 0)])), "ascending (topic index, partition)"),
        (packed_answer(packed_member([(0, 0), (0, 0)])), "ascending (topic index, partition)"),
        (
            packed_answer(packed_member([(1, 0), (0, 0)]), topics=["t0", "t1"]),
            "ascending (topic index, partition)",
        ),
        (
            packed_answer(packed_member([(0, 0)]), topics=["t0", "t0"]),
            "'topics' names a topic twice",
        ),
        (
            json.dumps(
                {
                    "topics": ["t0"],
                    "assignment": {"c-1": packed_member([(0, 0)]), "c-2": [[0, [1]]]},
                }
            ).encode(),
            "is not an object of two base64",
        ),
    ],
    ids=[
        "one-array",
        "a-third-field",
        "not-a-string",
        "not-base64",
        "not-whole-numbers",
        "unequal-lengths",
        "topic-index-beyond",
        "partitions-descending",
        "a-pair-twice",
        "topics-descending",
        "topic-named-twice",
        "forms-mixed",
    ],
)
def test_malformed_packed_answers_are_refused_by_name(raw: bytes, problem: str) -> None:
    with pytest.raises(MalformedAnswer, match=re.escape(problem)):
        read_answer(raw, VIEW)


def test_partitions_withheld_in_a_packed_answer_are_refused_in_an_eager_rebalance() -> None:
    body = json.loads(answer({"c-1": {"t0": [0, 1, 2, 3], "t1": [0, 1]}}, "packed"))
    body["assignment"] |= packed({"c-2": {}, "c-3": {}}, TOPICS)
    body["revoked"] = packed({"c-1": {}, "c-2": {"t0": [1]}}, TOPICS)
    with pytest.raises(InvalidAnswer, match="revoked"):
        read_answer(json.dumps(body).encode(), VIEW)
    body["revoked"] = packed({"c-1": {}, "c-2": {}}, TOPICS)
    assert as_lists(read_answer(json.dumps(body).encode(), VIEW).assignment)["c-2"] == {}


def test_a_packed_answer_names_topics_by_their_place_in_topics() -> None:
    raw = json.dumps(
        {
            "topics": ["t1", "t0"],
            "assignment": packed(
                {"c-1": {"t1": [0, 1], "t0": [3]}, "c-2": {"t0": [0, 1]}, "c-3": {"t0": [2]}},
                ["t1", "t0"],
            ),
        }
    ).encode()
    checked = read_answer(raw, VIEW)
    assert checked.assignment["c-1"] == [("t0", (3,)), ("t1", (0, 1))]
    assert as_lists(checked.assignment) == {
        "c-1": {"t1": [0, 1], "t0": [3]},
        "c-2": {"t0": [0, 1]},
        "c-3": {"t0": [2]},
    }


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
@pytest.mark.parametrize("form", FORMS)
def test_invalid_answers_are_refused(
    assignment: dict[str, dict[str, list[int]]], problem: str, form: str
) -> None:
    if form == "packed" and problem == "unknown partition t0--1":
        # The packed form's numbers have no sign: -1 cannot be written in it.
        with pytest.raises(struct.error):
            answer(assignment, form)
        return
    if form == "packed" and problem == "t0-0 to both":
        # A member's packed pairs strictly ascend: one given twice breaks the form itself.
        with pytest.raises(MalformedAnswer, match=re.escape("ascending (topic index")):
            read_answer(answer(assignment, form), VIEW)
        return
    with pytest.raises(InvalidAnswer, match=re.escape(problem)):
        read_answer(answer(assignment, form), VIEW)


def test_the_test_builders_break_an_answer_as_they_say() -> None:
    with pytest.raises(InvalidAnswer, match="unassigned"):
        read_answer(json.dumps(missing_a_partition(good())).encode(), VIEW)
    with pytest.raises(InvalidAnswer, match="to both"):
        read_answer(json.dumps(giving_a_partition_twice(good())).encode(), VIEW)


def test_withheld_partitions_are_refused_in_an_eager_rebalance() -> None:
    body = good()
    body["revoked"] = {"c-1": [[0, [0]]]}
    with pytest.raises(InvalidAnswer, match="revoked"):
        read_answer(json.dumps(body).encode(), VIEW)


def test_an_empty_revoked_map_is_fine() -> None:
    body = good()
    body["revoked"] = {"c-1": [[0, []]], "c-2": []}
    assert as_lists(read_answer(json.dumps(body).encode(), VIEW).assignment)["c-2"] == {"t0": [1]}


def test_the_indexed_form_names_topics_by_their_place_in_topics() -> None:
    raw = json.dumps(
        {
            "topics": ["t1", "t0"],
            "assignment": {"c-1": [[0, [0, 1]], [1, [3]]], "c-2": [[1, [0, 1]]], "c-3": [[1, [2]]]},
            "revoked": {"c-1": [], "c-2": [], "c-3": []},
            "strategy": "balanced",
        }
    ).encode()
    assert as_lists(read_answer(raw, VIEW).assignment) == {
        "c-1": {"t1": [0, 1], "t0": [3]},
        "c-2": {"t0": [0, 1]},
        "c-3": {"t0": [2]},
    }


def test_a_member_may_list_its_topics_in_any_order() -> None:
    raw = json.dumps(
        {
            "topics": ["t0", "t1"],
            "assignment": {"c-1": [[1, [0, 1]], [0, [3]]], "c-2": [[0, [0, 1]]], "c-3": [[0, [2]]]},
        }
    ).encode()
    assert read_answer(raw, VIEW).assignment["c-1"] == [("t0", (3,)), ("t1", (0, 1))]


@pytest.mark.parametrize("seed", range(20))
def test_every_form_reads_as_the_same_assignment(seed: int) -> None:
    rng = random.Random(seed)
    topics = {f"t{i}": rng.randint(1, 30) for i in range(rng.randint(1, 6))}
    names = sorted(topics)
    subscribers = tuple(
        Subscriber(f"c-{i}", tuple(rng.sample(names, rng.randint(1, len(names)))), NOTHING)
        for i in range(rng.randint(1, 8))
    )
    view = GroupView("g", subscribers, topics)
    given: dict[str, dict[str, list[int]]] = {s.member_id: {} for s in subscribers}
    for topic, count in topics.items():
        takers = [s.member_id for s in subscribers if topic in s.topics]
        for p in range(count):
            if takers:
                given[rng.choice(takers)].setdefault(topic, []).append(p)
    as_topics = read_answer(json.dumps({"assignment": given}).encode(), view)
    for by_position in (indexed, packed):
        body = {"topics": names, "assignment": by_position(given, names)}
        as_indexed = read_answer(json.dumps(body).encode(), view)
        assert as_indexed.assignment == as_topics.assignment
        assert as_lists(as_indexed.assignment) == given
        with pytest.raises(InvalidAnswer, match="unassigned"):
            read_answer(json.dumps(missing_a_partition(body)).encode(), view)
