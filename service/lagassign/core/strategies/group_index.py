"""A rebalance flattened into numbered members, topics and partitions.

The balanced strategy works on plain lists for speed (a million partitions).
Members and topics are numbered in the canonical order of the rebalance (member
id, topic name) and every partition gets one flat number, topic by topic:
partition ``p`` of topic ``t`` is ``offsets[t] + p``. Every tie the strategy
breaks by number is therefore broken the same way whatever order the request
listed members or topics in.
"""

from __future__ import annotations

from lagassign.core.model import Rebalance


class GroupIndex:
    """Members, topics and partitions of one rebalance, by number."""

    __slots__ = (
        "_by_lag",
        "identical",
        "lags",
        "member_ids",
        "member_topics",
        "offsets",
        "rebalance",
        "subscribed",
        "subscribers",
        "topic_of",
        "topics",
    )

    def __init__(self, rebalance: Rebalance) -> None:
        self.rebalance = rebalance
        self.member_ids: list[str] = [m.member_id for m in rebalance.members]
        self.topics: list[str] = sorted(rebalance.partitions)
        number = {topic: t for t, topic in enumerate(self.topics)}
        self.offsets: list[int] = [0]
        self.lags: list[int] = []
        self.topic_of: list[int] = []
        for t, topic in enumerate(self.topics):
            count = rebalance.partitions[topic]
            self.lags.extend(rebalance.lags[topic])
            self.topic_of.extend([t] * count)
            self.offsets.append(self.offsets[-1] + count)
        self.member_topics: list[list[int]] = [
            sorted(number[topic] for topic in m.topics) for m in rebalance.members
        ]
        self.subscribed: list[frozenset[int]] = [frozenset(ts) for ts in self.member_topics]
        self.subscribers: list[list[int]] = [[] for _ in self.topics]
        for m, ts in enumerate(self.member_topics):
            for t in ts:
                self.subscribers[t].append(m)
        self.identical = len(set(self.subscribed)) == 1
        self._by_lag: list[list[int]] | None = None

    @property
    def partition_count(self) -> int:
        return self.offsets[-1]

    def by_lag(self) -> list[list[int]]:
        """Per topic, its flat partitions by lag, largest first (equal lags by partition id)."""
        if self._by_lag is None:
            lag = self.lags.__getitem__
            self._by_lag = [
                sorted(range(self.offsets[t], self.offsets[t + 1]), key=lag, reverse=True)
                for t in range(len(self.topics))
            ]
        return self._by_lag

    def lower_bound(self) -> float:
        """A max member lag no assignment can beat: the mean, or the largest partition."""
        members = len(self.member_ids)
        return max(sum(self.lags) / members, float(max(self.lags, default=0)))

    def previous_owners(self) -> list[int]:
        """Per flat partition, the number of its rightful previous owner, or -1.

        The rule of :func:`lagassign.core.ownership.previous_owners`, on flat
        numbers (a million partitions): only claims on subscribed topics count,
        the higher generation wins (none counts as -1), and a tie between the
        best claims leaves the partition unowned.
        """
        owner = [-1] * self.partition_count
        best: list[int | None] = [None] * self.partition_count
        topic_number = {topic: t for t, topic in enumerate(self.topics)}
        for m, member in enumerate(self.rebalance.members):
            generation = -1 if member.generation is None else member.generation
            subscribed = set(member.topics)
            for topic, parts in member.owned.items():
                if topic not in subscribed:
                    continue
                start = self.offsets[topic_number[topic]]
                for p in parts:
                    x = start + p
                    held = best[x]
                    if held is None or generation > held:
                        best[x] = generation
                        owner[x] = m
                    elif generation == held:
                        owner[x] = -1
        return owner
