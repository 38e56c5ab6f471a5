"""The shim for kafka-python 3: ``partition_assignment_strategy=[KafkaPythonLagAssignor(...)]``.

kafka-python keeps an assignor given as an instance when it is an instance of
its ``AbstractPartitionAssignor``; this class is registered as a virtual
subclass of that ABC rather than inheriting from it, and implements its whole
interface, including ``supported_protocols``. Importing this module imports
kafka-python.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from lagassign_client.assignor import ShimAssignor
from lagassign_client.group import Subscriber
from lagassign_client.userdata import decode_subscription

# kafka-python ships no type information; its values are handled as Any here.
_abstract: Any = importlib.import_module("kafka.coordinator.assignors.abstract")
_range: Any = importlib.import_module("kafka.coordinator.assignors.range")
_consumer_protocol: Any = importlib.import_module("kafka.protocol.consumer.metadata")


def _user_data(value: object) -> bytes | None:
    return bytes(value) if isinstance(value, bytes | bytearray | memoryview) else None


class KafkaPythonLagAssignor(ShimAssignor):
    """kafka-python assignor that asks the lagassign sidecar, falling back to kafka-python's range.

    Same rules and settings as :class:`lagassign_client.LagAssignor`::

        consumer = KafkaConsumer(
            "orders",
            group_id="orders",
            partition_assignment_strategy=[
                KafkaPythonLagAssignor(url="http://127.0.0.1:8321", group_id="orders"),
            ],
        )

    Eager only: the fallback, kafka-python's range assignor, is an eager
    assignor, so the shim cannot promise the cooperative protocol's rules.

    Poll with ``timeout_ms`` above the shim's deadline (or iterate the consumer):
    kafka-python 3.0.12 drops the leader's own assignment when ``assign()``
    outlasts what is left of the ``poll()`` that runs the rebalance, and the
    leader then sits with no partitions (its own range assignor alike, when slow).
    """

    version = 0

    def supported_protocols(self) -> list[Any]:
        return [_abstract.RebalanceProtocol.EAGER]

    def metadata(self, topics: Iterable[str]) -> Any:
        return _consumer_protocol.ConsumerProtocolSubscription(
            self.version, sorted(topics), self.member.subscription_user_data()
        )

    def assign(self, cluster: Any, members: list[Any]) -> dict[str, Any]:
        """Called on the leader only: the sidecar's checked answer, or kafka-python's range."""
        subscribers = [
            Subscriber(
                member_id=member.member_id,
                topics=tuple(member.metadata.topics),
                user_data=decode_subscription(_user_data(member.metadata.user_data)),
                group_instance_id=member.group_instance_id or None,
            )
            for member in members
        ]
        assignment, decision = self.leader.decide(subscribers, cluster.partitions_for_topic)
        note = decision.user_data().encode()
        if assignment is None:
            assignment = {}
            fallback = _range.RangePartitionAssignor.assign(cluster, members)
            for member_id, given in fallback.items():
                topics: dict[str, list[int]] = {}
                for tp in given.partitions():
                    topics.setdefault(tp.topic, []).append(tp.partition)
                assignment[member_id] = topics
        return {
            member_id: _consumer_protocol.ConsumerProtocolAssignment(
                self.version, [(t, sorted(ps)) for t, ps in sorted(topics.items())], note
            )
            for member_id, topics in assignment.items()
        }

    def on_assignment(self, assignment: Any, generation: int) -> None:
        self.member.on_assignment(
            ((tp.topic, tp.partition) for tp in assignment.partitions()),
            _user_data(assignment.user_data),
            generation if generation >= 0 else None,
        )


_abstract.AbstractPartitionAssignor.register(KafkaPythonLagAssignor)
