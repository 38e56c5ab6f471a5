"""Reading the sidecar's packed answer and checking it against the leader's own metadata:
the contract's cases (``contract/answers/``) first, then each rule by the name it gives.

Every test runs through both steps of the reader: the standard library's and the optional
NumPy one (:mod:`lagassign_client.wire.answer_arrays`)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lagassign_client.errors import WITHHELD, FallbackReason, InvalidAnswer, MalformedAnswer
from lagassign_client.wire import answer_arrays
from lagassign_client.wire.answer import read_answer
from lagassign_client.wire.group import GroupView, Subscriber
from lagassign_client.wire.userdata import SubscriptionUserData
from tests.client.answers import (
    CONTRACT,
    as_lists,
    contract_cases,
    giving_a_partition_twice,
    member_topics,
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


@pytest.fixture(autouse=True, params=["numpy", "stdlib"])
def step(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every rule holds in both steps: NumPy's (the ``fast`` extra) and the standard library's."""
    if request.param == "stdlib":
        monkeypatch.setattr(answer_arrays, "AVAILABLE", False)
    else:
        assert answer_arrays.AVAILABLE, "the tests run with the shim's fast extra installed"
    return str(request.param)


def view_of(request: dict[str, Any]) -> GroupView:
    """The leader's view of the group a contract request was made for."""
    subscribers = tuple(
        Subscriber(member_id, tuple(topics), NOTHING)
        for member_id, topics in member_topics(request).items()
    )
    return GroupView(request.get("group_id", "g"), subscribers, dict(request["partitions"]))


@pytest.mark.parametrize("case", contract_cases("valid"))
def test_every_valid_contract_answer_reads_as_its_assignment(case: dict[str, Any]) -> None:
    raw = json.dumps(case["answer"]).encode()
    view = view_of(case["request"])
    if any(case["revoked"].values()):
        # The shim's rebalances are eager: an answer that withholds partitions is refused.
        assert case["request"]["protocol"] == "cooperative"
        with pytest.raises(InvalidAnswer, match=re.escape(WITHHELD)):
            read_answer(raw, view)
        return
    checked = read_answer(raw, view)
    assert as_lists(checked.assignment) == case["assignment"]
    assert checked.strategy == case["answer"]["strategy"]


@pytest.mark.parametrize("case", contract_cases("invalid"))
def test_every_invalid_contract_answer_is_refused(case: dict[str, Any]) -> None:
    with pytest.raises(FallbackReason) as refused:
        read_answer(json.dumps(case["answer"]).encode(), view_of(case["request"]))
    assert isinstance(refused.value, MalformedAnswer | InvalidAnswer), case["why"]


def answer(assignment: dict[str, dict[str, list[int]]], **extra: Any) -> bytes:
    """A packed answer over ``TOPICS`` giving ``assignment``."""
    body = {"group_id": "orders", "topics": TOPICS, "assignment": packed(assignment, TOPICS)}
    return json.dumps(body | extra).encode()


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


def test_a_member_without_known_topics_gets_nothing_and_is_not_expected() -> None:
    view = GroupView(
        "g", (Subscriber("c-1", ("t0",), NOTHING), Subscriber("c-2", ("new",), NOTHING)), {"t0": 1}
    )
    raw = json.dumps({"topics": ["t0"], "assignment": packed({"c-1": {"t0": [0]}}, ["t0"])})
    assert as_lists(read_answer(raw.encode(), view).assignment) == {"c-1": {"t0": [0]}, "c-2": {}}


def test_topics_come_out_in_name_order_whatever_their_place_in_topics() -> None:
    given = {"c-1": {"t1": [0, 1], "t0": [3]}, "c-2": {"t0": [0, 1]}, "c-3": {"t0": [2]}}
    raw = json.dumps({"topics": ["t1", "t0"], "assignment": packed(given, ["t1", "t0"])})
    checked = read_answer(raw.encode(), VIEW)
    assert checked.assignment["c-1"] == [("t0", (3,)), ("t1", (0, 1))]
    assert as_lists(checked.assignment) == given


def test_an_empty_revoked_map_is_fine_and_a_withheld_partition_is_not() -> None:
    body = json.loads(answer({"c-1": {"t0": [0, 1, 2, 3], "t1": [0, 1]}, "c-2": {}, "c-3": {}}))
    body["revoked"] = packed({"c-1": {}, "c-2": {}}, TOPICS)
    assert as_lists(read_answer(json.dumps(body).encode(), VIEW).assignment)["c-2"] == {}
    body["revoked"] = packed({"c-1": {}, "c-2": {"t0": [1]}}, TOPICS)
    with pytest.raises(InvalidAnswer, match=re.escape(WITHHELD)):
        read_answer(json.dumps(body).encode(), VIEW)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"not json", "not JSON"),
        (b"[]", "no 'assignment' object"),
        (json.dumps({"assignment": {}}).encode(), "'topics' is not a list"),
        (packed_answer({"topic_indices": ""}), "is not an object of two base64"),
        (packed_answer({**packed_arrays([(0, 0)]), "extra": ""}), "two base64"),
        (packed_answer({**packed_arrays([(0, 0)]), "partitions": 7}), "not a base64 string"),
        (packed_answer({**packed_arrays([(0, 0)]), "partitions": "AAAA*AAA"}), "not base64"),
        (packed_answer({"topic_indices": "AAA=", "partitions": "AAA="}), "whole 4-byte"),
        (packed_answer({**packed_arrays([(0, 0)]), "partitions": ""}), "1 topic indices but 0"),
        (packed_answer(packed_arrays([(1, 0)])), "a topic index that is not in 'topics'"),
        (packed_answer(packed_arrays([(0, 1), (0, 0)])), "ascending (topic index, partition)"),
        (packed_answer(packed_arrays([(0, 0), (0, 0)])), "ascending (topic index, partition)"),
        (
            packed_answer(packed_arrays([(1, 0), (0, 0)]), topics=["t0", "t1"]),
            "ascending (topic index, partition)",
        ),
        (packed_answer(packed_arrays([(0, 0)]), topics=["t0", "t0"]), "names a topic twice"),
        (packed_answer([[0, [0]]]), "is not an object of two base64"),
    ],
    ids=[
        "not-json",
        "not-an-object",
        "no-topics",
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
        "the-removed-indexed-form",
    ],
)
def test_malformed_answers_are_refused_by_name(raw: bytes, problem: str) -> None:
    with pytest.raises(MalformedAnswer, match=re.escape(problem)):
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
        (
            {"c-1": {"t0": [0, 1, 2, 3]}, "c-2": {"t1": [0, 1]}, "c-3": {}},
            "'t1' to 'c-2', not subscribed",
        ),
        (
            {"c-1": {"t0": [0, 1, 2, 3], "t1": [0, 1, 2]}, "c-2": {}, "c-3": {}},
            "unknown partition t1-2",
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
        "not-subscribed",
        "partition-beyond-count",
        "topic-without-metadata",
    ],
)
def test_invalid_answers_are_refused_by_name(
    assignment: dict[str, dict[str, list[int]]], problem: str
) -> None:
    with pytest.raises(InvalidAnswer, match=re.escape(problem)):
        read_answer(answer(assignment), VIEW)


def test_the_test_builders_break_an_answer_as_they_say() -> None:
    for broken, problem in (
        (missing_a_partition, "unassigned"),
        (giving_a_partition_twice, "both"),
    ):
        with pytest.raises(InvalidAnswer, match=problem):
            read_answer(json.dumps(broken(good())).encode(), VIEW)


def test_the_shim_reads_a_packed_answer_without_numpy_and_msgspec() -> None:
    """In a fresh interpreter where neither can be imported: the standard library's step."""
    script = (
        "import json, sys\n"
        "sys.modules['numpy'] = sys.modules['msgspec'] = None\n"
        "from lagassign_client.wire import answer_arrays, codec\n"
        "from lagassign_client.wire.answer import read_answer\n"
        "from tests.client.test_answer import view_of\n"
        "assert not answer_arrays.AVAILABLE and codec.CODEC == 'json'\n"
        "assert codec.ANSWER_FORM == 'packed'\n"
        "case = json.loads(sys.stdin.read())\n"
        "checked = read_answer(json.dumps(case['answer']).encode(), view_of(case['request']))\n"
        "print(json.dumps({m: {t: list(ps) for t, ps in pairs}"
        " for m, pairs in checked.assignment.items()}))\n"
    )
    case = (CONTRACT / "valid" / "eager.json").read_text()
    ran = subprocess.run(
        [sys.executable, "-c", script],
        input=case,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == json.loads(case)["assignment"]
