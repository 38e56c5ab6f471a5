"""The notes lagassign's shims leave in a group's protocol user data, read by the sidecar.

The shims (``client/python``, ``client/java``; see ``docs/shim-protocol.md``)
write UTF-8 JSON into the consumer protocol's user data:

- the leader into every member's **assignment**: how it made the assignment,
  ``{"v": 1, "by": "sidecar", "strategy": "balanced"}`` or
  ``{"v": 1, "by": "range", "reason": "timeout"}`` (a fallback), or
  ``{"v": 1, "by": "sidecar", "reason": "lag_blind"}`` (the sidecar answered
  without the group's lag);
- each member into its **subscription**: its owned partitions, their generation,
  its ``group.instance.id`` and rack.

``DescribeGroups`` returns both, so the sidecar learns how each live assignment was
made even when the leader never reached it. Reading is lenient: user data that is
absent, not JSON, or another assignor's reads as ``None``.

>>> read_assignment_note(b'{"v":1,"by":"range","reason":"timeout"}')
AssignmentNote(by='range', reason='timeout', strategy=None)
>>> read_assignment_note(b'{"v":1,"by":"sidecar","reason":"lag_blind"}').lag_blind
True
>>> read_subscription_note(b'{"v":1,"owned":{},"generation":7,"instance_id":"web-1"}')
SubscriptionNote(instance_id='web-1', generation=7)
>>> read_assignment_note(b"\\x00\\x01") is None
True
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

#: The shims' names for how an assignment was made.
BY_SIDECAR = "sidecar"
BY_RANGE = "range"
#: The fallback of the Java shim's CooperativeLagAssignor (Kafka's CooperativeStickyAssignor).
BY_COOPERATIVE_STICKY = "cooperative-sticky"
FALLBACKS = frozenset({BY_RANGE, BY_COOPERATIVE_STICKY})
#: ``reason`` of a sidecar answer made without all of the group's lag.
LAG_BLIND_REASONS = frozenset({"lag_blind", "lag_partial"})


@dataclass(frozen=True, slots=True)
class AssignmentNote:
    """How the leader made the live assignment: ``by`` the sidecar or the ``range`` fallback.

    ``reason``: the fallback's reason (``timeout``, ``unreachable``, ``status``, ...)
    when ``by == "range"``; ``lag_blind``/``lag_partial`` or ``None`` for a sidecar answer.
    """

    by: str
    reason: str | None = None
    strategy: str | None = None

    @property
    def fallback(self) -> bool:
        return self.by in FALLBACKS

    @property
    def lag_blind(self) -> bool:
        return self.by == BY_SIDECAR and self.reason in LAG_BLIND_REASONS

    def to_json(self) -> dict[str, Any]:
        return {"by": self.by, "reason": self.reason, "strategy": self.strategy}


def _json_object(raw: bytes | None) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        body = json.loads(raw)
    except ValueError:  # not UTF-8, or not JSON
        return None
    return body if isinstance(body, dict) else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def read_assignment_note(user_data: bytes | None) -> AssignmentNote | None:
    """The shim's note in an assignment's user data; ``None`` when there is none."""
    body = _json_object(user_data)
    if body is None or body.get("by") not in (BY_SIDECAR, *FALLBACKS):
        return None
    return AssignmentNote(
        by=body["by"], reason=_text(body.get("reason")), strategy=_text(body.get("strategy"))
    )


@dataclass(frozen=True, slots=True)
class SubscriptionNote:
    """What a member's subscription user data says of its static identity and generation."""

    instance_id: str | None = None
    generation: int | None = None


def read_subscription_note(user_data: bytes | None) -> SubscriptionNote:
    """The ``instance_id`` and ``generation`` lagassign's shims put in a subscription.

    aiokafka's and kafka-python's subscription (consumer protocol version 0) has no
    generation field, and DescribeGroups before v4 no instance id: the shims write both.
    """
    body = _json_object(user_data)
    if body is None:
        return SubscriptionNote()
    generation = body.get("generation")
    usable = isinstance(generation, int) and not isinstance(generation, bool) and generation >= 0
    return SubscriptionNote(_text(body.get("instance_id")), generation if usable else None)


def live_note(notes: Iterable[AssignmentNote | None]) -> AssignmentNote | None:
    """The group's note: the one most of its members carry (the leader gives all the same).

    ``None`` when no member carries one (another assignor, a rebalance in progress,
    or a group not yet described).

    >>> range_note = AssignmentNote("range", "timeout")
    >>> live_note([range_note, None, range_note]) == range_note
    True
    """
    counted = Counter(n for n in notes if n is not None)
    if not counted:
        return None
    return max(counted.items(), key=lambda item: (item[1], item[0].by, item[0].reason or ""))[0]
