"""The shim for aiokafka: ``partition_assignment_strategy=(LagAssignor(...),)``.

aiokafka looks its assignors up by ``name`` and calls ``metadata``, ``assign``
and ``on_assignment`` on them; an instance serves as well as a class, so each
consumer gets its own :class:`LagAssignor`. aiokafka is imported only when a
rebalance needs it: it is the application's library, not this package's.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from lagassign_client.assignor.assignment_digest import digest_of_assignments
from lagassign_client.assignor.shim import ShimAssignor
from lagassign_client.wire.group import Assignment, Subscriber
from lagassign_client.wire.userdata import decode_subscription


@cache
def _protocol() -> Any:
    # aiokafka ships no type information; its values are handled as Any here.
    return importlib.import_module("aiokafka.coordinator.protocol")


@cache
def _range_assignor() -> Any:
    return importlib.import_module("aiokafka.coordinator.assignors.range").RangePartitionAssignor


def subscribers_of(members: Mapping[str, Any]) -> list[Subscriber]:
    """The leader's view of aiokafka's decoded member metadata."""
    return [
        Subscriber(
            member_id=member_id,
            topics=tuple(metadata.subscription),
            user_data=decode_subscription(metadata.user_data),
        )
        for member_id, metadata in members.items()
    ]


def member_assignments(assignment: Assignment, note: bytes, version: int = 0) -> dict[str, Any]:
    """A checked assignment as aiokafka's member assignments, each with the leader's note."""
    member_assignment = _protocol().ConsumerProtocolMemberAssignment
    return {
        member_id: member_assignment(version, pairs, note)
        for member_id, pairs in assignment.items()
    }


class LagAssignor(ShimAssignor):
    """aiokafka assignor that asks the lagassign sidecar, falling back to aiokafka's range.

    Example: two consumers of ``orders`` (3 partitions) whose backlog is
    ``[100000, 60000, 50000]``. Range gives ``C0`` partitions 0 and 1 (160,000
    records behind) and ``C1`` partition 2 (50,000); the sidecar's answer gives
    ``C0`` partition 0 and ``C1`` partitions 1 and 2 (100,000 against 110,000)::

        consumer = AIOKafkaConsumer(
            "orders",
            group_id="orders",
            partition_assignment_strategy=(
                LagAssignor(url="http://127.0.0.1:8321", group_id="orders"),
            ),
        )

    aiokafka does not pass ``group_instance_id`` to assignors: give the same value
    as ``instance_id=`` so the leader sees static members.
    """

    version = 0

    def metadata(self, topics: Iterable[str]) -> Any:
        """This member's subscription, with owned partitions in the user data."""
        self.leadership.joining()
        return _protocol().ConsumerProtocolMemberMetadata(
            self.version, sorted(topics), self.member.subscription_user_data()
        )

    def assign(self, cluster: Any, members: Mapping[str, Any]) -> dict[str, Any]:
        """Called on the leader only: the sidecar's checked answer, or aiokafka's range."""
        result = self._assign(cluster, members)
        self.leadership.leading(digest_of_assignments(result))
        return result

    def _assign(self, cluster: Any, members: Mapping[str, Any]) -> dict[str, Any]:
        assignment, decision = self.leader.decide(
            subscribers_of(members), cluster.partitions_for_topic
        )
        note = decision.user_data().encode()
        if assignment is None:
            member_assignment = _protocol().ConsumerProtocolMemberAssignment
            fallback = _range_assignor().assign(cluster, members)
            return {
                member_id: member_assignment(given.version, given.assignment, note)
                for member_id, given in fallback.items()
            }
        return member_assignments(assignment, note, self.version)

    def on_assignment(self, assignment: Any) -> None:
        self.leadership.assigned()
        self.member.on_assignment(
            ((tp.topic, tp.partition) for tp in assignment.partitions()), assignment.user_data
        )
