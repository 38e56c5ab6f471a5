"""Builders of sidecar answers for tests: a valid one from a request, and broken ones.

A valid answer here is a plain per-topic round robin, so tests of the shim and
the fault-injecting sidecar do not depend on the service's strategies.
"""

from __future__ import annotations

import base64
import copy
import json
import struct
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

FULL_LAG: dict[str, Any] = {
    "source": "kafka",
    "as_of": "2026-01-01T00:00:00Z",
    "age_seconds": 1.0,
    "complete": True,
    "unknown_partitions": 0,
}
NO_LAG: dict[str, Any] = {
    "source": "none",
    "as_of": None,
    "age_seconds": None,
    "complete": False,
    "unknown_partitions": 0,
}


def partly_known(unknown: int) -> dict[str, Any]:
    """The ``lag`` block of an answer that assumed the lag of ``unknown`` partitions."""
    return {**FULL_LAG, "complete": False, "unknown_partitions": unknown}


def member_topics(request: dict[str, Any]) -> dict[str, list[str]]:
    """Member id -> its topics, from ``topics`` or the compact form's ``subscription``."""
    shared = request.get("subscriptions") or []
    return {
        m["member_id"]: m["topics"] if "topics" in m else shared[m["subscription"]]
        for m in request["members"]
    }


def packed_arrays(pairs: Sequence[tuple[int, int]]) -> dict[str, str]:
    """(topic index, partition) pairs as the packed form's two base64 arrays, as given."""
    arrays = [struct.pack(f"<{len(pairs)}I", *column) for column in zip(*pairs, strict=True)]
    topic_indices, partitions = arrays or [b"", b""]
    return {
        "topic_indices": base64.b64encode(topic_indices).decode(),
        "partitions": base64.b64encode(partitions).decode(),
    }


def packed(assignment: dict[str, dict[str, list[int]]], topics: list[str]) -> Any:
    """``{member: {topic: [p, ...]}}`` in the packed form, each member's pairs ascending."""
    index = {t: i for i, t in enumerate(topics)}
    return {
        m: packed_arrays(sorted((index[t], p) for t, ps in given.items() for p in ps))
        for m, given in assignment.items()
    }


def unpacked(member: dict[str, str]) -> list[tuple[int, int]]:
    """A packed member's (topic index, partition) pairs."""
    arrays = [base64.b64decode(member[key]) for key in ("topic_indices", "partitions")]
    numbers = [struct.unpack(f"<{len(a) // 4}I", a) for a in arrays]
    return list(zip(*numbers, strict=True))


def nested(answer: dict[str, Any], key: str = "assignment") -> dict[str, dict[str, list[int]]]:
    """``answer[key]`` as ``{member: {topic: [p, ...]}}``, from the packed or the topics form."""
    if "topics" not in answer:
        return copy.deepcopy(answer[key])
    topics = answer["topics"]
    out: dict[str, dict[str, list[int]]] = {}
    for m, pairs in answer[key].items():
        given = out[m] = {}
        for i, p in unpacked(pairs):
            given.setdefault(topics[i], []).append(p)
    return out


def in_form_of(answer: dict[str, Any], assignment: dict[str, dict[str, list[int]]]) -> Any:
    """``assignment`` in the form of ``answer``."""
    return in_form(assignment, answer_form(answer), answer.get("topics", []))


def answer_form(answer: dict[str, Any]) -> str:
    """The form ``answer`` is in: ``topics`` (for people) or ``packed``."""
    return "packed" if "topics" in answer else "topics"


def in_form(assignment: dict[str, dict[str, list[int]]], form: str, topics: list[str]) -> Any:
    """``assignment`` in the answer form ``form`` over ``topics``."""
    if form == "packed":
        return packed(assignment, topics)
    return assignment


def roundrobin_answer(request: dict[str, Any], lag: dict[str, Any] | None = None) -> dict[str, Any]:
    """A valid ``POST /assign`` response for ``request`` (in the answer form it asks for):
    partition p to subscriber p mod n, saying it saw ``lag`` (all of the group's lag by
    default); each partition counts 1."""
    topics_of = member_topics(request)
    members = sorted(topics_of)
    assignment: dict[str, dict[str, list[int]]] = {m: {} for m in members}
    for topic, count in sorted(request["partitions"].items()):
        subscribers = [m for m in members if topic in topics_of[m]]
        for p in range(count):
            owner = subscribers[p % len(subscribers)]
            assignment[owner].setdefault(topic, []).append(p)
    member_lag = {m: sum(len(ps) for ps in ts.values()) for m, ts in assignment.items()}
    answer: dict[str, Any] = {"group_id": request["group_id"]}
    form = request.get("answer_form", "topics")
    topics = list(request["partitions"])
    if form != "topics":
        answer["topics"] = topics
    answer.update(
        {
            "strategy": request.get("strategy") or "roundrobin",
            "assignment": in_form(assignment, form, topics),
            "revoked": in_form({m: {} for m in members}, form, topics),
            "lag": FULL_LAG if lag is None else lag,
            "stats": {
                "partitions": sum(member_lag.values()),
                "members": len(member_lag),
                "member_lag": member_lag,
                "max_lag": max(member_lag.values(), default=0),
                "mean_lag": sum(member_lag.values()) / max(len(member_lag), 1),
            },
        }
    )
    return answer


CONTRACT = Path(__file__).resolve().parents[2] / "contract" / "answers"


def contract_cases(kind: str) -> list[Any]:
    """The contract's answer cases of ``kind`` (``valid`` or ``invalid``), each a pytest
    param named after its file: ``{"request", "answer", ...}`` (``contract/README.md``)."""
    paths = sorted((CONTRACT / kind).glob("*.json"))
    assert paths, f"no contract cases in {CONTRACT / kind}"
    return [pytest.param(json.loads(path.read_text()), id=path.stem) for path in paths]


def first_assigned(answer: dict[str, Any]) -> tuple[str, str, int]:
    """(member, topic, partition) of the first partition the answer gives anyone."""
    for member_id, topics in sorted(nested(answer).items()):
        for topic, partitions in sorted(topics.items()):
            if partitions:
                return member_id, topic, partitions[0]
    raise ValueError("the answer assigns nothing")


def missing_a_partition(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer with one assigned partition left out (in the answer's own form)."""
    broken = copy.deepcopy(answer)
    assignment = nested(broken)
    member_id, topic, partition = first_assigned(broken)
    assignment[member_id][topic].remove(partition)
    broken["assignment"] = in_form_of(broken, assignment)
    return broken


def giving_a_partition_twice(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer with one partition also given to a second subscriber of its topic."""
    broken = copy.deepcopy(answer)
    assignment = nested(broken)
    owner, topic, partition = first_assigned(broken)
    for member_id, topics in sorted(assignment.items()):
        if member_id != owner:
            topics.setdefault(topic, []).append(partition)
            topics[topic].sort()
            broken["assignment"] = in_form_of(broken, assignment)
            return broken
    raise ValueError("the answer has a single member; nobody else can get the partition")


def as_lists(
    assignment: Mapping[str, Sequence[tuple[str, Sequence[int]]]],
) -> dict[str, dict[str, list[int]]]:
    """A checked assignment (per member its (topic, partition ids) pairs, topics in name order)
    with dicts and lists, to compare with literals."""
    for pairs in assignment.values():
        topics = [t for t, _ in pairs]
        assert topics == sorted(set(topics)), f"topics not in name order: {topics}"
    return {m: {t: list(ps) for t, ps in pairs} for m, pairs in assignment.items()}
