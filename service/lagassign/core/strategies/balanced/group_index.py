"""A rebalance flattened into numbered members, topics and partitions.

The balanced strategy works on plain lists, and on NumPy arrays for the passes
over every partition (a million of them): ``lag_array``, ``by_lag_arrays``.
Members and topics are numbered in the canonical order of the rebalance (member
id, topic name) and every partition gets one flat number, topic by topic:
partition ``p`` of topic ``t`` is ``offsets[t] + p``. Every tie the strategy
breaks by number is therefore broken the same way whatever order the request
listed members or topics in.
"""

from __future__ import annotations

from itertools import chain

import numpy as np
import numpy.typing as npt

from lagassign._native import by_lag_order
from lagassign.core.model import Rebalance
from lagassign.core.ownership import flat_owner_numbers
from lagassign.core.stats import lag_totals, lower_bound

# Lags, and sums of them, are int64 arrays while the group's whole lag fits; beyond (lags
# are Kafka offsets, up to 2**63 - 1 each) they are arrays of Python ints, with the same code.
INT64_LIMIT = 2**63 - 1


class GroupIndex:
    """Members, topics and partitions of one rebalance, by number."""

    __slots__ = (
        "_by_lag",
        "_by_lag_arrays",
        "_lags",
        "_subscriber_arrays",
        "_topic_of",
        "groups",
        "identical",
        "lag_array",
        "member_ids",
        "member_topics",
        "offsets",
        "rebalance",
        "subscribed",
        "subscribers",
        "topics",
    )

    def __init__(self, rebalance: Rebalance) -> None:
        self.rebalance = rebalance
        self.member_ids: list[str] = [m.member_id for m in rebalance.members]
        self.topics: list[str] = sorted(rebalance.partitions)
        number = {topic: t for t, topic in enumerate(self.topics)}
        self.offsets: list[int] = [0]
        for topic in self.topics:
            self.offsets.append(self.offsets[-1] + rebalance.partitions[topic])
        # members sharing a subscription (the usual case) share its numbers and its set
        shared: dict[tuple[str, ...], tuple[list[int], frozenset[int]]] = {}
        groups: dict[frozenset[int], list[int]] = {}
        self.member_topics: list[list[int]] = []
        self.subscribed: list[frozenset[int]] = []
        for m, member in enumerate(rebalance.members):
            known = shared.get(member.topics)
            if known is None:
                numbers = sorted(map(number.__getitem__, member.topics))
                known = shared[member.topics] = (numbers, frozenset(numbers))
            self.member_topics.append(known[0])
            self.subscribed.append(known[1])
            groups.setdefault(known[1], []).append(m)
        self.subscribers: list[list[int]] = [[] for _ in self.topics]
        for topics, members in groups.items():
            for t in topics:
                self.subscribers[t].extend(members)
        if len(groups) > 1:
            for subs in self.subscribers:
                subs.sort()
        self.identical = len(groups) == 1
        # members by subscription: (its topics, its members), members in number order
        self.groups: list[tuple[list[int], list[int]]] = [
            (sorted(topics), members) for topics, members in groups.items()
        ]
        self.lag_array: npt.NDArray[np.int64] = self._lag_array()
        lag_totals(rebalance, self.lag_array)  # shared with lower_bound and the statistics
        self._lags: list[int] | None = None
        self._topic_of: list[int] | None = None
        self._by_lag: list[list[int]] | None = None
        self._by_lag_arrays: list[npt.NDArray[np.int64]] | None = None
        self._subscriber_arrays: list[npt.NDArray[np.int64]] | None = None

    def _lag_array(self) -> npt.NDArray[np.int64]:
        """Per flat partition its lag: int64 when the group's whole lag fits, else Python ints."""
        lags = self.rebalance.lags
        count = self.offsets[-1]
        every = chain.from_iterable(lags[topic] for topic in self.topics)
        try:
            array = np.fromiter(every, dtype=np.int64, count=count)
        except OverflowError:  # a lag beyond int64: the sum is too
            return np.array(list(chain.from_iterable(lags[t] for t in self.topics)), dtype=object)
        if count and int(array.max()) * count > INT64_LIMIT and sum(array.tolist()) > INT64_LIMIT:
            return array.astype(object)
        return array

    @property
    def lags(self) -> list[int]:
        """Per flat partition its lag, as Python ints (built when first asked for)."""
        if self._lags is None:
            self._lags = self.lag_array.tolist()
        return self._lags

    @property
    def topic_of(self) -> list[int]:
        """Per flat partition its topic number (built when first asked for)."""
        if self._topic_of is None:
            topic_of: list[int] = []
            for t in range(len(self.topics)):
                topic_of.extend([t] * (self.offsets[t + 1] - self.offsets[t]))
            self._topic_of = topic_of
        return self._topic_of

    @property
    def partition_count(self) -> int:
        return self.offsets[-1]

    def by_lag_arrays(self) -> list[npt.NDArray[np.int64]]:
        """Per topic, its flat partitions by lag, largest first (equal lags by partition id)."""
        if self._by_lag_arrays is None:
            offsets = self.offsets
            # one compiled sort; lags held as Python ints (a lag sum past int64) are each int64
            order = by_lag_order(self.lag_array.astype(np.int64, copy=False), offsets)
            self._by_lag_arrays = [
                order[offsets[t] : offsets[t + 1]] for t in range(len(self.topics))
            ]
        return self._by_lag_arrays

    def subscriber_arrays(self) -> list[npt.NDArray[np.int64]]:
        """Per topic, its subscribers ascending; one shared array when subscriptions are identical.

        Read-only.
        """
        if self._subscriber_arrays is None:
            if self.identical:
                every = np.array(self.groups[0][1], dtype=np.int64)
                none = np.empty(0, dtype=np.int64)
                self._subscriber_arrays = [every if subs else none for subs in self.subscribers]
            else:
                self._subscriber_arrays = [
                    np.array(subs, dtype=np.int64) for subs in self.subscribers
                ]
        return self._subscriber_arrays

    def by_lag(self) -> list[list[int]]:
        """:meth:`by_lag_arrays` as lists."""
        if self._by_lag is None:
            self._by_lag = [parts.tolist() for parts in self.by_lag_arrays()]
        return self._by_lag

    def lower_bound(self) -> float:
        """:func:`lagassign.core.stats.lower_bound`: mean member lag, or largest partition."""
        return lower_bound(self.rebalance)

    def previous_owner_array(self) -> npt.NDArray[np.int64]:
        """Per flat partition, the number of its rightful previous owner, or -1 (read-only).

        The rule of :func:`lagassign.core.ownership.flat_owner_numbers`, computed once
        per rebalance.
        """
        return flat_owner_numbers(self.rebalance, self.topics)
