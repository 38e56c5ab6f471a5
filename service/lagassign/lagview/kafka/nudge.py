"""Making the broker recompute a stable consumer-protocol group's target assignment.

Kafka's group coordinator computes a consumer-protocol (KIP-848) group's target
assignment only when the group epoch moves: a member joins or leaves, or a
subscription changes. Lag that builds in a stable group never moves it. The
sidecar moves it itself with a short-lived member of its own, through the lag
view's aiokafka connection to the group's coordinator (``ConsumerGroupHeartbeat``
v1, API key 68, the version where the client makes its own member id, KIP-1082):

1. **join**: member epoch 0, a new member id (a random Kafka ``Uuid``), subscribed
   to one topic that does not exist (:data:`NUDGE_TOPIC`), naming no server
   assignor (so it never changes which assignor the group uses). Its subscription
   changes the group's, so the group epoch moves and the group's assignor (the
   broker plugin, for a group on ``lagassign``) computes a new target assignment
   for the real members and nothing for this one (its topic has no partitions);
2. it heartbeats until ``ConsumerGroupDescribe`` shows the target assignment at
   the group epoch its join caused (at most ``wait_s``);
3. **leave**: member epoch -1. The group epoch moves once more and the assignor
   computes again, now without it (on the next heartbeat of a real member).

Before the join, the group is described once (its group epoch before); an
``unless`` check given by the caller reads that description and may skip the nudge
(outcome ``recomputed_recently``: another replica of the sidecar, or a real change,
has just moved the group's epochs, :mod:`lagassign.groups.nudger`).

The real members only see a new target assignment, as when any member joins. It
takes READ on the group (the heartbeat) and DESCRIBE on :data:`NUDGE_TOPIC`
(Kafka checks it for every subscribed name, existing or not). A failure after the
join was sent still sends the leave, so the member never stays in the group
longer than its session timeout either way.
"""

from __future__ import annotations

import asyncio
import base64
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from io import BytesIO
from typing import Any, Literal

from aiokafka.errors import (  # type: ignore[import-untyped]
    IncompatibleBrokerVersion,
    KafkaError,
    for_code,
)
from aiokafka.protocol.abstract import AbstractType  # type: ignore[import-untyped]
from aiokafka.protocol.types import (  # type: ignore[import-untyped]
    CompactArray,
    CompactString,
    Int8,
    Int16,
    Int32,
    Schema,
    TaggedFields,
)

from lagassign.lagview.errors import LagViewError
from lagassign.lagview.kafka.groups import (
    COORDINATOR_MOVED,
    NUDGE_TOPIC,
    GroupDescription,
    GroupReader,
)
from lagassign.lagview.kafka.wire import OneVersion, request_struct, response_struct

__all__ = ["NUDGE_TOPIC", "NudgeResult", "Unless", "heartbeat_request", "nudge"]

CONSUMER_GROUP_HEARTBEAT_KEY = 68
#: Member epochs of the heartbeat: 0 joins, -1 leaves.
JOIN_EPOCH = 0
LEAVE_EPOCH = -1
#: How long the coordinator may wait for the member to revoke (it never holds any).
REBALANCE_TIMEOUT_MS = 30_000
#: The pace of the member's heartbeats and checks while it waits for the new target.
POLL_S = 0.25

NudgeOutcome = Literal["nudged", "not_recomputed", "recomputed_recently", "refused", "failed"]
NUDGE_OUTCOMES: tuple[NudgeOutcome, ...] = (
    "nudged",
    "not_recomputed",
    "recomputed_recently",
    "refused",
    "failed",
)
#: Reads the group as described just before the join: why not to nudge it, or ``None``.
Unless = Callable[[GroupDescription], str | None]


class _Uuid(AbstractType):  # type: ignore[misc]
    """A Kafka ``Uuid`` (16 bytes) as ``Uuid.toString()`` prints it: URL-safe base64, unpadded."""

    @classmethod
    def encode(cls, value: str) -> bytes:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        if len(raw) != 16:
            raise ValueError(f"not a Kafka Uuid: {value!r}")
        return raw

    @classmethod
    def decode(cls, data: BytesIO) -> str:
        raw = data.read(16)
        if len(raw) != 16:
            raise ValueError("Buffer underrun decoding Uuid")
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


class _NullableStruct:
    """A nullable struct of a flexible message: an int8 marker (-1 null), then the fields."""

    def __init__(self, *fields: tuple[str, Any]) -> None:
        self.schema = Schema(*fields)

    def encode(self, value: Any) -> bytes:
        if value is None:
            return bytes(Int8.encode(-1))
        return bytes(Int8.encode(1)) + bytes(self.schema.encode(value))

    def decode(self, data: BytesIO) -> Any:
        return None if Int8.decode(data) < 0 else self.schema.decode(data)

    def repr(self, value: Any) -> str:
        return "NULL" if value is None else self.schema.repr(value)


_TOPIC_PARTITIONS = CompactArray(
    ("topic_id", _Uuid),
    ("partitions", CompactArray(Int32)),
    ("tags", TaggedFields),
)


ConsumerGroupHeartbeatResponseV1 = response_struct(
    CONSUMER_GROUP_HEARTBEAT_KEY,
    1,
    ("throttle_time_ms", Int32),
    ("error_code", Int16),
    ("error_message", CompactString("utf-8")),
    ("member_id", CompactString("utf-8")),
    ("member_epoch", Int32),
    ("heartbeat_interval_ms", Int32),
    (
        "assignment",
        _NullableStruct(("topic_partitions", _TOPIC_PARTITIONS), ("tags", TaggedFields)),
    ),
    ("tags", TaggedFields),
)


ConsumerGroupHeartbeatRequestV1 = request_struct(
    ConsumerGroupHeartbeatResponseV1,
    ("group_id", CompactString("utf-8")),
    ("member_id", CompactString("utf-8")),
    ("member_epoch", Int32),
    ("instance_id", CompactString("utf-8")),
    ("rack_id", CompactString("utf-8")),
    ("rebalance_timeout_ms", Int32),
    ("subscribed_topic_names", CompactArray(CompactString("utf-8"))),
    ("subscribed_topic_regex", CompactString("utf-8")),
    ("server_assignor", CompactString("utf-8")),
    ("topic_partitions", _TOPIC_PARTITIONS),
    ("tags", TaggedFields),
    flexible=True,
)


def heartbeat_request(
    group_id: str, member_id: str, member_epoch: int, topics: list[str]
) -> OneVersion:
    """One ``ConsumerGroupHeartbeat`` of the sidecar's member, v1 only.

    ``member_epoch`` 0 joins (subscribed to ``topics``, owning nothing), -1 leaves,
    any other value is a plain heartbeat that changes nothing.
    """
    joining = member_epoch == JOIN_EPOCH
    return OneVersion(
        ConsumerGroupHeartbeatRequestV1,
        group_id,
        member_id,
        member_epoch,
        None,  # instance id: a dynamic member
        None,  # rack
        REBALANCE_TIMEOUT_MS if joining else -1,
        topics if joining else None,
        None,  # regex
        None,  # server assignor: none, so the group's own stays preferred
        [] if joining else None,  # owned partitions: none
        {},
    )


def new_member_id() -> str:
    """A member id as Kafka's clients make one (``Uuid.randomUuid().toString()``)."""
    return base64.urlsafe_b64encode(os.urandom(16)).rstrip(b"=").decode("ascii")


@dataclass(frozen=True, slots=True)
class NudgeResult:
    """What one nudge did.

    ``outcome``: ``nudged`` (joined, the target assignment was recomputed at the
    group epoch the join caused, and left), ``not_recomputed`` (joined and left, but
    the coordinator had not recomputed within the wait), ``recomputed_recently``
    (not joined: the ``unless`` check found the group's epochs moved recently,
    ``detail`` says how), ``refused`` (the broker
    answered an error, ``detail`` names it: an ACL, an unsupported version),
    ``failed`` (no answer: a connection error or a timeout). ``epoch_before``:
    the group epoch before the join; ``epoch_joined``: the group epoch once the
    join was counted (the leave moves it one further).
    """

    group_id: str
    member_id: str
    outcome: NudgeOutcome
    detail: str = ""
    epoch_before: int | None = None
    epoch_joined: int | None = None
    seconds: float = 0.0


class _Refused(LagViewError):
    """The coordinator answered the heartbeat with an error code."""


async def _heartbeat(
    groups: GroupReader, node: int, group_id: str, member_id: str, epoch: int, *topics: str
) -> Any:
    """The coordinator's answer to one heartbeat (:func:`heartbeat_request`)."""
    request = heartbeat_request(group_id, member_id, epoch, list(topics))
    response = await groups.client.send(node, request)
    if response.error_code:
        error = for_code(response.error_code)
        if issubclass(error, COORDINATOR_MOVED):
            groups.forget_coordinator(group_id)
        message = f": {response.error_message}" if response.error_message else ""
        # aiokafka names every code it does not know UnknownError: keep the code too.
        raise _Refused(f"{error.__name__} (error code {response.error_code}){message}")
    return response


async def nudge(
    groups: GroupReader,
    group_id: str,
    *,
    wait_s: float = 10.0,
    timeout_s: float = 5.0,
    unless: Unless | None = None,
) -> NudgeResult:
    """Join ``group_id`` with the sidecar's own member and leave it (see the module).

    Every request is bounded by ``timeout_s``; the wait for the new target assignment
    by ``wait_s``. ``unless`` reads the description made just before the join and
    names a reason to skip it. Never raises for a Kafka failure: the failure is the
    outcome.
    """
    member_id = new_member_id()
    started = time.monotonic()
    joined = False
    node: int | None = None
    before: int | None = None
    epoch_joined: int | None = None

    def result(outcome: NudgeOutcome, detail: str = "") -> NudgeResult:
        return NudgeResult(
            group_id,
            member_id,
            outcome,
            detail,
            before,
            epoch_joined,
            round(time.monotonic() - started, 3),
        )

    try:
        async with asyncio.timeout(timeout_s):
            node = await groups.coordinator(group_id)
            described = await groups.describe_consumer_group(group_id)
            before = described.group_epoch
            skip = unless(described) if unless is not None else None
            if skip is not None:
                return result("recomputed_recently", skip)
            joined = True  # from here on the leave is always sent
            join = await _heartbeat(groups, node, group_id, member_id, JOIN_EPOCH, NUDGE_TOPIC)
        epoch, recomputed = join.member_epoch, False
        deadline = time.monotonic() + wait_s
        for _ in range(int(wait_s / POLL_S) + 1):
            async with asyncio.timeout(timeout_s):
                described = await groups.describe_consumer_group(group_id)
            if any(m.member_id == member_id for m in described.members):
                epoch_joined = described.group_epoch
                if (described.assignment_epoch or 0) >= (described.group_epoch or 0):
                    recomputed = True
                    break
            if time.monotonic() >= deadline:
                break
            await asyncio.sleep(POLL_S)
            # A heartbeat keeps the member in the group and lets the coordinator compute
            # the target once its assignment interval has passed.
            async with asyncio.timeout(timeout_s):
                beat = await _heartbeat(groups, node, group_id, member_id, epoch)
            epoch = beat.member_epoch
        outcome: NudgeOutcome = "nudged" if recomputed else "not_recomputed"
        detail = "" if recomputed else f"no new target assignment within {wait_s:g} s"
        left = await _leave(groups, node, group_id, member_id, timeout_s)
        joined = False
        return result(outcome, detail if left is None else f"{detail}; leave: {left}".lstrip("; "))
    except (_Refused, IncompatibleBrokerVersion, NotImplementedError) as exc:
        detail = str(exc) or type(exc).__name__
        if isinstance(exc, NotImplementedError | IncompatibleBrokerVersion):
            detail = "the broker does not offer ConsumerGroupHeartbeat v1"
        return result("refused", detail)
    except (KafkaError, LagViewError, TimeoutError, OSError) as exc:
        return result("failed", f"{type(exc).__name__}: {exc}".rstrip(": "))
    finally:
        if joined and node is not None:
            await _leave(groups, node, group_id, member_id, timeout_s)


async def _leave(
    groups: GroupReader, node: int, group_id: str, member_id: str, timeout_s: float
) -> str | None:
    """Send the leave; ``None`` when the coordinator took it, else why not."""
    try:
        async with asyncio.timeout(timeout_s):
            await _heartbeat(groups, node, group_id, member_id, LEAVE_EPOCH)
    except (_Refused, KafkaError, LagViewError, TimeoutError, OSError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None
