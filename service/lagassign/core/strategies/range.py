"""Range: Kafka's ``RangeAssignor``, exactly (without its rack-aware pass).

Rule. Each topic on its own: its partitions in numeric order are cut into
consecutive ranges, one per subscribed member, in Kafka's member order: static
members first, by ``group.instance.id``, then dynamic members, by member id
(strings compared as Java compares them, by UTF-16 code unit). With P
partitions and C subscribers each member gets P // C partitions and the first
P % C members one more. Topics are independent, so the first members collect
the extra partition of every topic.

Example (the static-membership example of Kafka's javadoc): members C3 (static,
``group.instance.id`` I0) and C2 (static, I1) on topics t0 and t1 of 3
partitions each. I0 sorts before I1, so C3 comes first:

    C3: t0 [0, 1], t1 [0, 1]
    C2: t0 [2],    t1 [2]

Had both been dynamic, C2 would come first and take the larger share; static
ids keep the answer stable when member ids change across restarts.
"""

from __future__ import annotations

from collections.abc import Iterable

from lagassign.core.model import Assignment, Member, Rebalance


def java_order(text: str) -> bytes:
    """A sort key that orders strings as Java's ``String.compareTo`` does.

    Java compares UTF-16 code units; big-endian UTF-16 bytes compare the same
    way (Python alone would order characters above U+FFFF after U+FFFF).
    """
    return text.encode("utf-16-be", "surrogatepass")


def kafka_member_order(members: Iterable[Member]) -> list[Member]:
    """Members in the order of Kafka's ``MemberInfo``: static by instance id, then dynamic by id."""

    def key(member: Member) -> tuple[int, bytes]:
        if member.group_instance_id is not None:
            return (0, java_order(member.group_instance_id))
        return (1, java_order(member.member_id))

    return sorted(members, key=key)


def assign(rebalance: Rebalance) -> Assignment:
    """Kafka's range assignment of ``rebalance`` (every member listed, lists sorted)."""
    assignment: Assignment = {m.member_id: {} for m in rebalance.members}
    subscribers: dict[str, list[str]] = {t: [] for t in rebalance.partitions}
    for member in kafka_member_order(rebalance.members):
        for topic in member.topics:
            subscribers[topic].append(member.member_id)

    for topic, count in rebalance.partitions.items():
        members = subscribers[topic]
        if count == 0 or not members:
            continue
        per_member, extra = divmod(count, len(members))
        start = 0
        for i, member_id in enumerate(members):
            length = per_member + (1 if i < extra else 0)
            if length:
                assignment[member_id][topic] = list(range(start, start + length))
            start += length
    return assignment
