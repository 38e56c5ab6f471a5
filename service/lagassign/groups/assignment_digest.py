"""A short digest of a group's assignment, the same in the sidecar and in the shims.

The rebalance advice carries the digest of the live assignment it weighed, so the
leader's helper acts only on advice about the assignment it made itself: an answer
the sidecar computed before the group's last rebalance (its refresh has not seen it
yet) never forces a second one.

The digest is the first 16 hex digits of the SHA-256 of one line per assigned
partition, ``member_id TAB topic TAB partition LF``, sorted by member id, topic and
partition number (members with no partition add nothing). Example: ``c-1`` holding
``t0-0`` and ``c-2`` holding ``t0-1`` hash ``"c-1\\tt0\\t0\\nc-2\\tt0\\t1\\n"``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable


def assignment_digest(assigned: Iterable[tuple[str, str, int]]) -> str:
    """The digest of (member id, topic, partition) triples."""
    text = "".join(f"{member}\t{topic}\t{p}\n" for member, topic, p in sorted(assigned))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
