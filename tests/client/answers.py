"""Builders of sidecar answers for tests: a valid one from a request, and broken ones.

A valid answer here is a plain per-topic round robin, so tests of the shim and
the fault-injecting sidecar do not depend on the service's strategies.
"""

from __future__ import annotations

import copy
from typing import Any


def roundrobin_answer(request: dict[str, Any]) -> dict[str, Any]:
    """A valid ``POST /assign`` response for ``request``: partition p to subscriber p mod n."""
    members = sorted(request["members"], key=lambda m: m["member_id"])
    assignment: dict[str, dict[str, list[int]]] = {m["member_id"]: {} for m in members}
    for topic, count in sorted(request["partitions"].items()):
        subscribers = [m["member_id"] for m in members if topic in m["topics"]]
        for p in range(count):
            owner = subscribers[p % len(subscribers)]
            assignment[owner].setdefault(topic, []).append(p)
    return {
        "group_id": request["group_id"],
        "strategy": request.get("strategy") or "roundrobin",
        "assignment": assignment,
        "revoked": {},
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
