"""Builders of sidecar answers for tests: a valid one from a request, and broken ones.

A valid answer here is a plain per-topic round robin, so tests of the shim and
the fault-injecting sidecar do not depend on the service's strategies.
"""

from __future__ import annotations

import copy
from typing import Any

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


def roundrobin_answer(request: dict[str, Any], lag: dict[str, Any] | None = None) -> dict[str, Any]:
    """A valid ``POST /assign`` response for ``request``: partition p to subscriber p mod n,
    saying it saw ``lag`` (all of the group's lag by default); each partition counts 1."""
    members = sorted(request["members"], key=lambda m: m["member_id"])
    assignment: dict[str, dict[str, list[int]]] = {m["member_id"]: {} for m in members}
    for topic, count in sorted(request["partitions"].items()):
        subscribers = [m["member_id"] for m in members if topic in m["topics"]]
        for p in range(count):
            owner = subscribers[p % len(subscribers)]
            assignment[owner].setdefault(topic, []).append(p)
    member_lag = {m: sum(len(ps) for ps in ts.values()) for m, ts in assignment.items()}
    return {
        "group_id": request["group_id"],
        "strategy": request.get("strategy") or "roundrobin",
        "assignment": assignment,
        "revoked": {},
        "lag": FULL_LAG if lag is None else lag,
        "stats": {
            "partitions": sum(member_lag.values()),
            "members": len(member_lag),
            "member_lag": member_lag,
            "max_lag": max(member_lag.values(), default=0),
            "mean_lag": sum(member_lag.values()) / max(len(member_lag), 1),
        },
    }


def first_assigned(answer: dict[str, Any]) -> tuple[str, str, int]:
    """(member, topic, partition) of the first partition the answer gives anyone."""
    for member_id, topics in sorted(answer["assignment"].items()):
        for topic, partitions in sorted(topics.items()):
            if partitions:
                return member_id, topic, partitions[0]
    raise ValueError("the answer assigns nothing")


def missing_a_partition(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer with one assigned partition left out."""
    broken = copy.deepcopy(answer)
    member_id, topic, partition = first_assigned(broken)
    broken["assignment"][member_id][topic].remove(partition)
    return broken


def giving_a_partition_twice(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer with one partition also given to a second subscriber of its topic."""
    broken = copy.deepcopy(answer)
    owner, topic, partition = first_assigned(broken)
    for member_id, topics in sorted(broken["assignment"].items()):
        if member_id != owner:
            topics.setdefault(topic, []).append(partition)
            topics[topic].sort()
            return broken
    raise ValueError("the answer has a single member; nobody else can get the partition")
