"""A short digest of a group's assignment, the same as the sidecar's ``assignment_digest``.

The first 16 hex digits of the SHA-256 of one line per assigned partition,
``member_id TAB topic TAB partition LF``, sorted by member id, topic and partition
number. Example: ``c-1`` holding ``t0-0`` and ``c-2`` holding ``t0-1`` hash
``"c-1\\tt0\\t0\\nc-2\\tt0\\t1\\n"`` to ``72ad50af9b0c62e8``. The rebalance advisor acts
only on advice about the assignment its member made as leader, so advice the sidecar
computed before the last rebalance never forces another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any


def assignment_digest(assigned: Iterable[tuple[str, str, int]]) -> str:
    """The digest of (member id, topic, partition) triples."""
    text = "".join(f"{member}\t{topic}\t{p}\n" for member, topic, p in sorted(assigned))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def digest_of_assignments(assignments: Mapping[str, Any]) -> str:
    """The digest of a library's answer to ``assign()``: member id -> an object whose
    ``partitions()`` lists the member's topic-partitions (aiokafka, kafka-python)."""
    return assignment_digest(
        (member, tp.topic, tp.partition)
        for member, assignment in assignments.items()
        for tp in assignment.partitions()
    )
