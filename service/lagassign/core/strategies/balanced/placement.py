"""An assignment under construction: who holds each partition, and each member's lag.

A :class:`Placement` keeps three views in step: the owner of every flat
partition, the partitions each member holds, and each member's lag (the sum of
its partitions' lags). The balanced strategy's steps (keeping owned partitions,
dealing the rest, local moves, rack swaps) all work on one placement.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from lagassign._native import Moved
from lagassign.core.flat import FlatAssignment
from lagassign.core.model import Assignment
from lagassign.core.strategies.balanced.group_index import GroupIndex

# Per flat partition, its previous owner or -1 (an array, or a sequence of int).
Previous = Sequence[int] | npt.NDArray[np.int64]


class Placement:
    """Owner per flat partition, partitions per member, lag per member.

    ``owner`` (int64, -1: nobody) and ``stamp`` (int64) are arrays: ``stamp[x]``
    is when ``x`` came to its owner, from a counter that every hand-over
    advances. A member's partitions, in the order they came to it (the order
    that breaks ties in the local moves), are its partitions by ascending
    stamp: giving appends, moving away removes. :meth:`held` builds those lists
    once and keeps them until a bulk change.
    """

    __slots__ = (
        "_by_topic",
        "_held",
        "by_totals",
        "index",
        "load",
        "next_stamp",
        "owner",
        "previous",
        "stamp",
    )

    def __init__(
        self, index: GroupIndex, previous: Previous | None = None, by_totals: bool = False
    ) -> None:
        self.index = index
        # the layout keeps the totals within one, not each topic's counts (:mod:`.by_totals`)
        self.by_totals = by_totals
        # previous owner per flat partition (-1: none), if any
        self.previous: npt.NDArray[np.int64] | None = (
            None if previous is None else np.asarray(previous, dtype=np.int64)
        )
        self.owner: npt.NDArray[np.int64] = np.full(index.partition_count, -1, dtype=np.int64)
        self.stamp: npt.NDArray[np.int64] = np.zeros(index.partition_count, dtype=np.int64)
        self.next_stamp = 0
        self.load: list[int] = [0] * len(index.member_ids)
        # per member, its partitions in order; None until asked for after a bulk change
        self._held: list[list[int]] | None = [[] for _ in index.member_ids]
        # per member, what it holds by topic (see held_by_topic), dropped when it changes
        self._by_topic: dict[int, dict[int, list[int]]] = {}

    @classmethod
    def of_owners(
        cls,
        index: GroupIndex,
        owner: Sequence[int] | npt.NDArray[np.int64],
        previous: Previous | None = None,
    ) -> Placement:
        """A complete placement from an owner per flat partition (given in flat order)."""
        placement = cls(index, previous)
        owners = np.asarray(owner, dtype=np.int64)
        if len(owners) and owners.min() < 0:
            raise AssertionError("of_owners needs an owner for every partition")
        placement.take(np.arange(len(owners), dtype=np.int64), owners)
        return placement

    @classmethod
    def of_assignment(
        cls, index: GroupIndex, assignment: Assignment, previous: Previous | None = None
    ) -> Placement:
        number = {member_id: m for m, member_id in enumerate(index.member_ids)}
        topic_number = {topic: t for t, topic in enumerate(index.topics)}
        owner = [-1] * index.partition_count
        for member_id, topics in assignment.items():
            for topic, parts in topics.items():
                start = index.offsets[topic_number[topic]]
                for p in parts:
                    owner[start + p] = number[member_id]
        return cls.of_owners(index, owner, previous)

    @property
    def held(self) -> list[list[int]]:
        """Per member, its partitions in the order they came to it (read-only)."""
        if self._held is None:
            self._held = self._held_lists()
        return self._held

    def _held_lists(self) -> list[list[int]]:
        owner = self.owner
        order = np.lexsort((self.stamp, owner))  # by owner, then by stamp
        order = order[owner[order] >= 0]
        counts = np.bincount(owner[order], minlength=len(self.load))
        ends = np.cumsum(counts).tolist()
        flat: list[int] = order.tolist()
        return [flat[b - n : b] for b, n in zip(ends, counts.tolist(), strict=True)]

    def give(self, x: int, m: int) -> None:
        self.owner[x] = m
        self.stamp[x] = self.next_stamp
        self.next_stamp += 1
        if self._held is not None:
            self._held[m].append(x)
        self.load[m] += self.index.lags[x]
        self._by_topic.pop(m, None)

    def held_by_topic(self, m: int) -> dict[int, list[int]]:
        """What ``m`` holds by topic (:func:`by_topic`), kept until ``m``'s partitions change.

        Read-only: the local moves ask for the same members' topics over and over.
        """
        known = self._by_topic.get(m)
        if known is None:
            known = self._by_topic[m] = by_topic(self.held[m], self.index.topic_of)
        return known

    def take(self, parts: npt.NDArray[np.int64], members: npt.NDArray[np.int64]) -> None:
        """Give ``parts[i]`` to ``members[i]`` for every i, in that order (unowned partitions).

        The same as :meth:`give` one by one, in bulk: each member's new partitions
        join its list in the order given.
        """
        if not len(parts):
            return
        self.owner[parts] = members
        self.stamp[parts] = np.arange(self.next_stamp, self.next_stamp + len(parts))
        self.next_stamp += len(parts)
        self._held = None
        self._by_topic.clear()
        lags = self.index.lag_array
        load = np.array(self.load, dtype=lags.dtype)
        np.add.at(load, members, lags[parts])
        self.load[:] = load.tolist()

    def move(self, x: int, to: int) -> None:
        m = int(self.owner[x])
        if self._held is not None:
            self._held[m].remove(x)
        self.load[m] -= self.index.lags[x]
        self._by_topic.pop(m, None)
        self.give(x, to)

    def rearrange(self, moved: Moved) -> None:
        """Take in what the compiled local moves changed (``lagassign._native.lower_max_lag``)."""
        self.next_stamp = moved.next_stamp
        if not moved.members:
            return
        self.owner[moved.partitions] = moved.owners
        self.stamp[moved.restamped] = moved.stamps
        for m, load in zip(moved.members, moved.loads, strict=True):
            self.load[m] = load
        self._held = None
        self._by_topic.clear()

    def cost(self, x: int, to: int) -> int:
        """How many more partitions would be off their previous owner if ``x`` went to ``to``."""
        if self.previous is None:
            return 0
        home = int(self.previous[x])
        if home < 0:
            return 0
        return int(home != to) - int(home != self.owner[x])

    def max_load(self) -> int:
        return max(self.load, default=0)

    def moved(self) -> int:
        """Partitions whose owner differs from their previous owner."""
        if self.previous is None:
            return 0
        home = self.previous
        return int(((home >= 0) & (home != self.owner)).sum())

    def flat(self) -> FlatAssignment:
        """The answer as an array: every member, the member number of every partition."""
        index = self.index
        owner = self.owner.astype(np.int32)
        if len(owner) and owner.min() < 0:
            raise AssertionError("the placement leaves partitions without a member")
        return FlatAssignment(
            member_ids=tuple(index.member_ids),
            topics=tuple(index.topics),
            starts=tuple(index.offsets),
            owner=owner,
        )

    def assignment(self) -> Assignment:
        """The answer: every member, and per topic its sorted partition ids."""
        return self.flat().nested()


def by_topic(parts: list[int], topic_of: list[int]) -> dict[int, list[int]]:
    """``parts`` by topic: topics in order of first appearance, partitions in order."""
    topics = list(map(topic_of.__getitem__, parts))
    if len(set(topics)) == len(topics):  # one partition per topic (a big group's usual case)
        return dict(zip(topics, map(list, zip(parts)), strict=True))
    out: dict[int, list[int]] = {}
    for x, topic in zip(parts, topics, strict=True):
        group = out.get(topic)
        if group is None:
            out[topic] = [x]
        else:
            group.append(x)
    return out
