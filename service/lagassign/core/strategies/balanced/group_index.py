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
from lagassign.core.ownership import owner_numbers
from lagassign.core.stats import lower_bound


class GroupIndex:
    """Members, topics and partitions of one rebalance, by number."""

    __slots__ = (
        "_by_lag",
        "_lower_bound",
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
        self._lower_bound: float | None = None

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
        """:func:`lagassign.core.stats.lower_bound`: mean member lag, or largest partition."""
        if self._lower_bound is None:
            self._lower_bound = lower_bound(self.rebalance)
        return self._lower_bound

    def previous_owners(self) -> list[int]:
        """Per flat partition, the number of its rightful previous owner, or -1.

        The rule of :func:`lagassign.core.ownership.owner_numbers`, numbered flat.
        """
        by_topic = owner_numbers(self.rebalance)
        owner: list[int] = []
        for topic in self.topics:
            owner.extend(by_topic[topic])
        return owner
