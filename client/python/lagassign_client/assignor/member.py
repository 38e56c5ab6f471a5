"""What one member remembers between rebalances, and tells the leader at the next one."""

from __future__ import annotations

from collections.abc import Iterable

from lagassign_client.wire.userdata import (
    AssignmentUserData,
    SubscriptionUserData,
    decode_assignment,
)


class MemberState:
    """The partitions this member owns, the generation they came from, its static id and rack.

    One per consumer: the state is this member's own, so an assignor object must
    not be shared by two consumers.
    """

    def __init__(self, instance_id: str | None = None, rack: str | None = None) -> None:
        self.instance_id = instance_id
        self.rack = rack
        self.owned: dict[str, tuple[int, ...]] = {}
        self.generation: int | None = None
        self.assigned_by: AssignmentUserData | None = None

    def subscription_user_data(self) -> bytes:
        return SubscriptionUserData(
            owned=self.owned,
            generation=self.generation,
            instance_id=self.instance_id,
            rack=self.rack,
        ).encode()

    def on_assignment(
        self,
        partitions: Iterable[tuple[str, int]],
        user_data: bytes | None,
        generation: int | None = None,
    ) -> None:
        """Remember a new assignment (topic, partition pairs) and the leader's note on it."""
        owned: dict[str, set[int]] = {}
        for topic, partition in partitions:
            owned.setdefault(topic, set()).add(partition)
        self.owned = {t: tuple(sorted(ps)) for t, ps in sorted(owned.items())}
        self.generation = generation
        self.assigned_by = decode_assignment(user_data)
