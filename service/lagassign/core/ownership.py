"""Who owned which partition before this rebalance.

Members report their owned partitions in their subscription. After a missed
rebalance two members may claim the same partition; as in Kafka's sticky
assignors, the claim with the higher generation wins, and a tie between
claims of the same generation leaves the partition unowned.
"""

from __future__ import annotations

from itertools import repeat

from lagassign.core.model import Rebalance

TopicPartition = tuple[str, int]


def previous_owners(rebalance: Rebalance) -> dict[TopicPartition, str]:
    """(topic, partition) -> member id of its rightful previous owner."""
    owners: dict[TopicPartition, str] = {}
    claimed = 0
    for member in rebalance.members:
        subscribed = set(member.topics)
        for topic, owned in member.owned.items():
            if topic in subscribed:  # a member never keeps a topic it left
                owners.update(dict.fromkeys(zip(repeat(topic), owned), member.member_id))
                claimed += len(owned)
    if claimed == len(owners):
        return owners  # the usual case: no two members claim the same partition
    return _resolve_contested(rebalance)


def _resolve_contested(rebalance: Rebalance) -> dict[TopicPartition, str]:
    best: dict[TopicPartition, tuple[int, str | None]] = {}
    for member in rebalance.members:
        generation = -1 if member.generation is None else member.generation
        subscribed = set(member.topics)
        for topic, owned in member.owned.items():
            if topic not in subscribed:
                continue  # a member never keeps a topic it no longer subscribes to
            for p in owned:
                key = (topic, p)
                held = best.get(key)
                if held is None or generation > held[0]:
                    best[key] = (generation, member.member_id)
                elif generation == held[0]:
                    best[key] = (generation, None)
    return {key: owner for key, (_, owner) in best.items() if owner is not None}
