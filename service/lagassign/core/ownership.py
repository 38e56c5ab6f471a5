"""Who owned which partition before this rebalance.

Members report their owned partitions in their subscription. After a missed
rebalance two members may claim the same partition; as in Kafka's sticky
assignors, the claim with the higher generation wins (no generation counts as
-1), and a tie between the best claims leaves the partition unowned. A member
never keeps a topic it no longer subscribes to, so its claims there do not count.

The rule is written once, in :func:`owner_numbers`, on plain lists (a million
partitions); :func:`previous_owners` gives the same owners by member id.
"""

from __future__ import annotations

from lagassign.core.model import Rebalance

TopicPartition = tuple[str, int]


def owner_numbers(rebalance: Rebalance) -> dict[str, list[int]]:
    """Topic -> per partition, the position in ``rebalance.members`` of its rightful owner, or -1.

    Every topic of ``rebalance.partitions`` is listed.
    """
    owners = {topic: [-1] * count for topic, count in rebalance.partitions.items()}
    claimed = 0
    for m, member in enumerate(rebalance.members):
        for topic, parts in member.owned.items():
            if topic in member.topics:
                row = owners[topic]
                for p in parts:
                    row[p] = m
                claimed += len(parts)
    if claimed == sum(len(row) - row.count(-1) for row in owners.values()):
        return owners  # the usual case: no two members claim the same partition
    return _resolve_contested(rebalance)


def _resolve_contested(rebalance: Rebalance) -> dict[str, list[int]]:
    owners = {topic: [-1] * count for topic, count in rebalance.partitions.items()}
    best: dict[str, list[int | None]] = {t: [None] * n for t, n in rebalance.partitions.items()}
    for m, member in enumerate(rebalance.members):
        generation = -1 if member.generation is None else member.generation
        for topic, parts in member.owned.items():
            if topic not in member.topics:
                continue
            row, best_row = owners[topic], best[topic]
            for p in parts:
                held = best_row[p]
                if held is None or generation > held:
                    best_row[p] = generation
                    row[p] = m
                elif generation == held:
                    row[p] = -1
    return owners


def previous_owners(rebalance: Rebalance) -> dict[TopicPartition, str]:
    """(topic, partition) -> member id of its rightful previous owner."""
    if not any(m.owned for m in rebalance.members):
        return {}
    ids = [m.member_id for m in rebalance.members]
    return {
        (topic, p): ids[m]
        for topic, row in owner_numbers(rebalance).items()
        for p, m in enumerate(row)
        if m >= 0
    }
