"""Reading consumer groups from Kafka: the group list, one group's description and
its committed offsets, through aiokafka's admin client.

One group per ``DescribeGroups`` call (aiokafka's multi-group describe misparses
the response). The group coordinator of each group is cached and forgotten when
the broker says it moved.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from aiokafka.admin import AIOKafkaAdminClient  # type: ignore[import-untyped]
from aiokafka.errors import (  # type: ignore[import-untyped]
    CoordinatorLoadInProgressError,
    CoordinatorNotAvailableError,
    IncompatibleBrokerVersion,
    NotCoordinatorError,
    for_code,
)
from aiokafka.protocol.commit import OffsetFetchRequest  # type: ignore[import-untyped]

from lagassign.lagview.assignment_note import read_assignment_note, read_subscription_note
from lagassign.lagview.errors import CoordinatorMoved, GroupReadError
from lagassign.lagview.kafka.consumer_group_describe import (
    ConsumerGroupDescribeResponseV0,
    DescribedConsumerGroup,
    consumer_group_describe,
)
from lagassign.lagview.kafka.group_requests import (
    OffsetFetchResponseV3,
    describe_groups_v4,
    list_groups_v5,
    offset_fetch_all,
)
from lagassign.lagview.kafka.metadata import TopicIdsResponseV12, topic_ids
from lagassign.lagview.member_metadata import (
    Subscription,
    decode_member_assignment,
    decode_subscription,
)
from lagassign.lagview.snapshot import MemberDescription

T = TypeVar("T")

# Errors after which the group's coordinator must be looked up again.
COORDINATOR_MOVED = (
    NotCoordinatorError,
    CoordinatorNotAvailableError,
    CoordinatorLoadInProgressError,
)

# Looking a group's coordinator up while the broker makes it ready (see
# ``GroupReader.coordinator``): Kafka's clients wait retry.backoff.ms (100 ms).
COORDINATOR_BACKOFF_S = 0.1
COORDINATOR_ATTEMPTS = 30

# The group types of KIP-848: ``classic`` (JoinGroup/SyncGroup, client-side
# assignors) and ``consumer`` (the broker assigns; client-side assignors do not apply).
CLASSIC = "classic"
CONSUMER = "consumer"

#: The topic the sidecar's own short-lived member subscribes to (:mod:`.nudge`). It must
#: not exist; the view leaves it out of a member's subscription, so a refresh that sees
#: that member never reads offsets of a topic that is not there.
NUDGE_TOPIC = "lagassign-nudge.no-such-topic"

# A group's committed offsets: topic -> partition -> offset.
CommittedOffsets = dict[str, dict[int, int]]


@dataclass(frozen=True, slots=True)
class ListedGroup:
    """One entry of ``ListGroups``; ``state`` and ``group_type`` are ``None`` on old brokers."""

    group_id: str
    protocol_type: str
    state: str | None
    group_type: str | None


@dataclass(frozen=True, slots=True)
class GroupDescription:
    """One group's ``DescribeGroups`` answer, decoded.

    ``protocol_type`` is the embedded protocol (``consumer`` for consumer
    groups, empty for groups that only commit offsets); ``assignment_strategy``
    is the protocol the members agreed on, ``None`` when there is none.

    A consumer-protocol group (KIP-848) is described with
    ``ConsumerGroupDescribe`` instead: ``assignment_strategy`` is then the
    broker's assignor, the epochs are set and ``topic_ids`` maps the ids of the
    assigned topics to their names.
    """

    group_id: str
    state: str | None
    protocol_type: str
    assignment_strategy: str | None
    members: tuple[MemberDescription, ...]
    group_epoch: int | None = None
    assignment_epoch: int | None = None
    topic_ids: Mapping[str, str] = field(default_factory=dict)


def decode_assignment(data: bytes | None) -> dict[str, tuple[int, ...]]:
    """A member's assignment bytes (consumer protocol) -> topic -> sorted partitions.

    Empty bytes (a group that is rebalancing) give an empty assignment; bytes
    that are not a consumer-protocol assignment raise ``ValueError``.
    """
    if not data:
        return {}
    return dict(decode_member_assignment(data).partitions)


class GroupReader:
    """Lists and describes groups and reads committed offsets over one admin client.

    Every method raises :class:`~lagassign.lagview.errors.GroupReadError` (or
    aiokafka's connection errors, which the refresh loop records) and never
    waits longer than ``timeout_s`` per request.
    """

    def __init__(self, admin: AIOKafkaAdminClient, timeout_s: float) -> None:
        self._admin = admin
        # aiokafka's admin client exposes no way to send a request version it does
        # not ship; its connection (``_client``) negotiates versions and sends any.
        self._client = admin._client
        self._timeout_s = timeout_s
        self._coordinators: dict[str, int] = {}
        self._v5_list = True
        self._v4_describe = True
        self._v3_offsets = True
        # group id -> group type (classic or consumer) from the last listing.
        self._types: dict[str, str] = {}

    @property
    def client(self) -> Any:
        """aiokafka's connection the reader sends through (its coordinators, its versions)."""
        return self._client

    async def list_groups(self) -> list[ListedGroup]:
        """Every group the cluster knows, with state and type where the broker says."""
        async with asyncio.timeout(self._timeout_s):
            if self._v5_list:
                try:
                    return await self._list_groups_v5()
                except (NotImplementedError, IncompatibleBrokerVersion):
                    self._v5_list = False
            pairs = await self._admin.list_consumer_groups()
        return sorted((ListedGroup(str(g), str(p), None, None) for g, p in pairs), key=_by_id)

    async def _list_groups_v5(self) -> list[ListedGroup]:
        nodes = [b.nodeId for b in self._client.cluster.brokers()] or [
            self._client.get_random_node()
        ]
        found: dict[str, ListedGroup] = {}
        for node in nodes:
            response = await self._client.send(node, list_groups_v5())
            if response.error_code:
                raise for_code(response.error_code)("ListGroups failed")
            for group, protocol_type, state, group_type, _tags in response.groups:
                found[group] = ListedGroup(group, protocol_type, state or None, group_type or None)
        self._types = {g: e.group_type for g, e in found.items() if e.group_type}
        return [found[g] for g in sorted(found)]

    async def coordinator(self, group_id: str) -> int:
        """The node id of ``group_id``'s coordinator (cached).

        A cluster whose first group this is has no offsets topic yet: the broker
        creates it on this very request and answers "coordinator not available"
        until it is ready (a fraction of a second). The lookup is asked again, as
        Kafka's own clients do, every ``COORDINATOR_BACKOFF_S``, at most
        ``COORDINATOR_ATTEMPTS`` times; the caller's own time limit still applies.
        """
        node = self._coordinators.get(group_id)
        if node is not None:
            return node
        for attempt in range(1, COORDINATOR_ATTEMPTS + 1):
            try:
                node = int(await self._admin.find_coordinator(group_id))
            except (CoordinatorNotAvailableError, CoordinatorLoadInProgressError):
                if attempt == COORDINATOR_ATTEMPTS:
                    raise
                await asyncio.sleep(COORDINATOR_BACKOFF_S)
            else:
                self._coordinators[group_id] = node
                return node
        raise AssertionError("unreachable: the last attempt returns or raises")

    def forget_coordinator(self, group_id: str) -> None:
        """Look ``group_id``'s coordinator up again on the next request."""
        self._coordinators.pop(group_id, None)

    async def describe(self, group_id: str) -> GroupDescription:
        """``DescribeGroups`` for one group (v4 when the broker offers it).

        A group the last listing called a ``consumer`` group (KIP-848) is
        described with ``ConsumerGroupDescribe``.
        """
        if self._types.get(group_id) == CONSUMER:
            return await self.describe_consumer_group(group_id)
        raw = await self._at_coordinator(
            group_id, "describe", lambda node: self._describe_raw(group_id, node)
        )
        if raw[0]:
            self._raise_group_error(group_id, "describe", raw[0])
        return describe_answer(group_id, raw)

    async def _describe_raw(self, group_id: str, node: int) -> tuple[Any, ...]:
        if self._v4_describe:
            try:
                response = await self._client.send(node, describe_groups_v4(group_id))
            except (NotImplementedError, IncompatibleBrokerVersion):
                self._v4_describe = False
            else:
                return cast(tuple[Any, ...], response.groups[0])
        responses = await self._admin.describe_consumer_groups([group_id], node)
        error, group, state, protocol_type, protocol, members = responses[0].groups[0][:6]
        # Before v4 there is no group instance id: put None in its place.
        padded = [(m[0], None, *m[1:]) for m in members]
        return (error, group, state, protocol_type, protocol, padded)

    async def describe_consumer_group(self, group_id: str) -> GroupDescription:
        """``ConsumerGroupDescribe`` (KIP-848) for one consumer-protocol group."""
        try:
            response: ConsumerGroupDescribeResponseV0 = await self._at_coordinator(
                group_id,
                "consumer group describe",
                lambda node: self._client.send(node, consumer_group_describe(group_id)),
            )
        except (NotImplementedError, IncompatibleBrokerVersion) as exc:
            raise GroupReadError(
                group_id, "the broker does not offer ConsumerGroupDescribe"
            ) from exc
        group = response.groups[0]
        if group.error_code:
            self._raise_group_error(group_id, "consumer group describe", group.error_code)
        return consumer_group_answer(group)

    async def topic_ids(self) -> dict[str, str]:
        """Every topic of the cluster: topic id -> name (``Metadata`` v12)."""
        async with asyncio.timeout(self._timeout_s):
            response: TopicIdsResponseV12 = await self._client.send(
                self._client.get_random_node(), topic_ids()
            )
        return response.topic_names

    async def committed(self, group_id: str) -> CommittedOffsets:
        """topic -> partition -> committed offset, for partitions with a commit.

        One ``OffsetFetch`` for all partitions; its group-level error
        (coordinator loading or moved) is checked, which aiokafka's admin client
        does not do: an unread group must never look like a group without commits.
        """
        response = await self._at_coordinator(
            group_id, "committed offsets", lambda node: self._offset_fetch(group_id, node)
        )
        if response.error_code:
            self._raise_group_error(group_id, "committed offsets", response.error_code)
        for topic, partition, error in response.partition_errors:
            self._raise_group_error(group_id, f"committed offset of {topic}-{partition}", error)
        committed: CommittedOffsets = {}
        for topic, rows in response.offsets.items():
            kept = {p: o for p, o in rows.items() if o >= 0}
            if kept:
                committed[topic] = kept
        return committed

    async def _at_coordinator(
        self, group_id: str, what: str, ask: Callable[[int], Awaitable[T]]
    ) -> T:
        """``ask(node)`` of the group's coordinator, both within the request timeout."""
        try:
            async with asyncio.timeout(self._timeout_s):
                return await ask(await self.coordinator(group_id))
        except TimeoutError as exc:
            raise GroupReadError(group_id, f"{what} timed out") from exc

    async def _offset_fetch(self, group_id: str, node: int) -> OffsetFetchResponseV3:
        if self._v3_offsets:
            try:
                answer: OffsetFetchResponseV3 = await self._client.send(
                    node, offset_fetch_all(group_id)
                )
                return answer
            except (NotImplementedError, IncompatibleBrokerVersion):
                self._v3_offsets = False
        generic = await self._client.send(node, OffsetFetchRequest(group_id, None))
        offsets: dict[str, dict[int, int]] = {}
        errors: list[tuple[str, int, int]] = []
        for topic, rows in generic.topics:
            for partition, offset, _metadata, error in rows:
                offsets.setdefault(topic, {})[partition] = offset
                if error:
                    errors.append((topic, partition, error))
        return OffsetFetchResponseV3(0, offsets, errors, getattr(generic, "error_code", 0))

    def _raise_group_error(self, group_id: str, what: str, code: int) -> None:
        error = for_code(code)
        if issubclass(error, COORDINATOR_MOVED):
            self.forget_coordinator(group_id)
            raise CoordinatorMoved(group_id, f"{what} failed: {error.__name__}")
        raise GroupReadError(group_id, f"{what} failed: {error.__name__}")


def describe_answer(group_id: str, raw: tuple[Any, ...]) -> GroupDescription:
    """A ``DescribeGroups`` group entry (v4 layout) -> :class:`GroupDescription`.

    For a ``consumer`` protocol type, each member's metadata (its subscription)
    and assignment bytes are decoded: topics, owned partitions, generation, rack,
    and the lagassign shims' notes. Bytes that do not decode leave those parts empty.
    """
    _error, _group, state, protocol_type, protocol, members = raw[:6]
    consumer = protocol_type == "consumer"
    decoded = [
        consumer_member(*member) if consumer else MemberDescription(*member[:4])
        for member in members
    ]
    decoded.sort(key=lambda m: m.member_id)
    return GroupDescription(
        group_id=group_id,
        state=state or None,
        protocol_type=protocol_type or "",
        assignment_strategy=protocol or None,
        members=tuple(decoded),
    )


def consumer_member(
    member_id: str,
    instance_id: str | None,
    client_id: str,
    host: str,
    metadata: bytes | None,
    assignment: bytes | None,
) -> MemberDescription:
    """One member of a classic consumer group, its subscription and assignment decoded."""
    try:
        given = decode_member_assignment(assignment) if assignment else None
    except ValueError:
        given = None
    try:
        subscription = decode_subscription(metadata) if metadata else None
    except ValueError:
        subscription = None
    if subscription is None:
        subscription = Subscription(topics=(), user_data=None)
    note = read_subscription_note(subscription.user_data)
    return MemberDescription(
        member_id=member_id,
        # Before DescribeGroups v4 the broker does not say; lagassign's shims do.
        group_instance_id=instance_id or note.instance_id,
        client_id=client_id,
        host=host,
        assignment=given.partitions if given is not None else {},
        rack=subscription.rack,
        subscribed_topics=subscription.topics,
        owned=subscription.owned,
        generation=(
            subscription.generation if subscription.generation is not None else note.generation
        ),
        note=read_assignment_note(given.user_data) if given is not None else None,
    )


def consumer_group_answer(group: DescribedConsumerGroup) -> GroupDescription:
    """A ``ConsumerGroupDescribe`` group -> :class:`GroupDescription`.

    Each member's live assignment is its current ``Assignment`` (what
    ``kafka-consumer-groups --describe`` shows), by topic name; its ``owned`` is its
    ``TargetAssignment``, what the coordinator tells the assignor the member owns at
    the group's next epoch.
    """
    topic_ids: dict[str, str] = {}
    members = []
    for m in group.members:
        for t in (*m.assignment, *m.target_assignment):
            topic_ids[t.topic_id] = t.topic
        assignment = {t.topic: t.partitions for t in m.assignment if t.partitions}
        target = {t.topic: t.partitions for t in m.target_assignment if t.partitions}
        members.append(
            MemberDescription(
                member_id=m.member_id,
                group_instance_id=m.instance_id,
                client_id=m.client_id,
                host=m.client_host,
                assignment=assignment,
                rack=m.rack,
                subscribed_topics=tuple(sorted(set(m.subscribed_topics) - {NUDGE_TOPIC})),
                member_epoch=m.member_epoch,
                owned=target,
            )
        )
    members.sort(key=lambda m: m.member_id)
    return GroupDescription(
        group_id=group.group_id,
        state=group.state or None,
        protocol_type=CONSUMER,
        assignment_strategy=group.assignor or None,
        members=tuple(members),
        group_epoch=group.group_epoch,
        assignment_epoch=group.assignment_epoch,
        topic_ids=topic_ids,
    )


def _by_id(group: ListedGroup) -> str:
    return group.group_id
