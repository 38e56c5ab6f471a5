"""The user data of the ``lagassign`` protocol, the same for Python and Java members.

Subscription (member -> leader), UTF-8 JSON::

    {"v": 1, "owned": {"t0": [0, 2]}, "generation": 7, "instance_id": "web-1", "rack": null}

It is how owned partitions, the generation of the assignment they came from and
the static identity reach the leader whatever the client library (aiokafka drops
``group.instance.id`` before the assignor sees the members).

Assignment (leader -> member), UTF-8 JSON, so every member knows how its
assignment was made::

    {"v": 1, "by": "sidecar", "strategy": "balanced"}
    {"v": 1, "by": "range", "reason": "timeout"}

Decoding is lenient: user data that is absent, not JSON or of another shape
reads as "nothing known" rather than failing the rebalance.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

USER_DATA_VERSION = 1

AssignedBy = Literal["sidecar", "range"]


@dataclass(frozen=True, slots=True)
class SubscriptionUserData:
    """What one member tells the leader about itself."""

    owned: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    generation: int | None = None
    instance_id: str | None = None
    rack: str | None = None

    def encode(self) -> bytes:
        body = {
            "v": USER_DATA_VERSION,
            "owned": {t: sorted(ps) for t, ps in sorted(self.owned.items()) if ps},
            "generation": self.generation,
            "instance_id": self.instance_id,
            "rack": self.rack,
        }
        return json.dumps(body, separators=(",", ":")).encode()


@dataclass(frozen=True, slots=True)
class AssignmentUserData:
    """How the leader made an assignment: the sidecar's answer or the range fallback."""

    by: AssignedBy
    strategy: str | None = None
    reason: str | None = None

    def encode(self) -> bytes:
        body: dict[str, Any] = {"v": USER_DATA_VERSION, "by": self.by}
        if self.strategy is not None:
            body["strategy"] = self.strategy
        if self.reason is not None:
            body["reason"] = self.reason
        return json.dumps(body, separators=(",", ":")).encode()


def _json_object(raw: bytes | None) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return None
    return body if isinstance(body, dict) else None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _optional_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _owned(value: object) -> dict[str, tuple[int, ...]]:
    if not isinstance(value, dict):
        return {}
    owned: dict[str, tuple[int, ...]] = {}
    for topic, partitions in value.items():
        if not isinstance(topic, str) or not isinstance(partitions, Sequence):
            continue
        kept = tuple(sorted({p for p in partitions if _is_int(p) and p >= 0}))
        if kept:
            owned[topic] = kept
    return owned


def decode_subscription(raw: bytes | None) -> SubscriptionUserData:
    """Read a member's subscription user data; unreadable parts read as unknown."""
    body = _json_object(raw)
    if body is None:
        return SubscriptionUserData()
    generation = body.get("generation")
    return SubscriptionUserData(
        owned=_owned(body.get("owned")),
        generation=generation if _is_int(generation) else None,
        instance_id=_optional_str(body.get("instance_id")),
        rack=_optional_str(body.get("rack")),
    )


def decode_assignment(raw: bytes | None) -> AssignmentUserData | None:
    """Read the leader's note on an assignment; None when there is none."""
    body = _json_object(raw)
    if body is None or body.get("by") not in ("sidecar", "range"):
        return None
    return AssignmentUserData(
        by=body["by"],
        strategy=_optional_str(body.get("strategy")),
        reason=_optional_str(body.get("reason")),
    )
