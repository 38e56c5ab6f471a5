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

from lagassign.core.model import Assignment
from lagassign.core.strategies.balanced.group_index import GroupIndex


class Placement:
    """Owner per flat partition, partitions per member, lag per member."""

    __slots__ = ("held", "index", "load", "owner", "previous")

    def __init__(self, index: GroupIndex, previous: Sequence[int] | None = None) -> None:
        self.index = index
        self.previous = previous  # previous owner per flat partition (-1: none), if any
        self.owner: list[int] = [-1] * index.partition_count
        self.held: list[list[int]] = [[] for _ in index.member_ids]
        self.load: list[int] = [0] * len(index.member_ids)

    @classmethod
    def of_owners(
        cls, index: GroupIndex, owner: Sequence[int], previous: Sequence[int] | None = None
    ) -> Placement:
        """A complete placement from an owner per flat partition."""
        placement = cls(index, previous)
        for x, m in enumerate(owner):
            placement.give(x, m)
        return placement

    @classmethod
    def of_assignment(
        cls, index: GroupIndex, assignment: Assignment, previous: Sequence[int] | None = None
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

    def give(self, x: int, m: int) -> None:
        self.owner[x] = m
        self.held[m].append(x)
        self.load[m] += self.index.lags[x]

    def take(self, parts: npt.NDArray[np.int64], members: npt.NDArray[np.int64]) -> None:
        """Give ``parts[i]`` to ``members[i]`` for every i, in that order.

        The same as :meth:`give` one by one, in bulk: each member's new partitions
        join its list in the order given.
        """
        if not len(parts):
            return
        owner = np.array(self.owner, dtype=np.int64)
        owner[parts] = members
        self.owner[:] = owner.tolist()
        order = _by_member(members)
        ordered: list[int] = parts[order].tolist()
        holders = members[order]
        bounds = _bounds(holders)
        held = self.held
        for m, a, b in zip(holders[bounds[:-1]].tolist(), bounds, bounds[1:], strict=False):
            held[m].extend(ordered[a:b])
        lags = self.index.lag_array
        load = np.array(self.load, dtype=lags.dtype)
        np.add.at(load, members, lags[parts])
        self.load[:] = load.tolist()

    def move(self, x: int, to: int) -> None:
        m = self.owner[x]
        self.held[m].remove(x)
        self.load[m] -= self.index.lags[x]
        self.give(x, to)

    def cost(self, x: int, to: int) -> int:
        """How many more partitions would be off their previous owner if ``x`` went to ``to``."""
        if self.previous is None:
            return 0
        home = self.previous[x]
        if home < 0:
            return 0
        return (home != to) - (home != self.owner[x])

    def max_load(self) -> int:
        return max(self.load, default=0)

    def moved(self) -> int:
        """Partitions whose owner differs from their previous owner."""
        if self.previous is None:
            return 0
        return sum(1 for m, home in zip(self.owner, self.previous, strict=True) if 0 <= home != m)

    def assignment(self) -> Assignment:
        """The answer: every member, and per topic its sorted partition ids.

        The partitions are grouped by (member, topic) in one stable sort, so the
        lists are built in bulk rather than one partition at a time.
        """
        index = self.index
        topics, member_ids = index.topics, index.member_ids
        answer: Assignment = {member_id: {} for member_id in member_ids}
        owner = np.array(self.owner, dtype=np.int64)
        if not len(owner):
            return answer
        if owner.min() < 0:
            raise AssertionError("the placement leaves partitions without a member")
        topic_of = np.array(index.topic_of, dtype=np.int64)
        # flat numbers run topic by topic: by member alone, stably, is by (member, topic, id)
        order = _by_member(owner)
        ids: list[int] = (
            order - np.array(index.offsets[:-1], dtype=np.int64)[topic_of[order]]
        ).tolist()
        by_member, by_topic = owner[order], topic_of[order]
        groups = _bounds(by_member, by_topic)  # one group per (member, topic)
        starts = groups[:-1]
        lists = list(map(ids.__getitem__, map(slice, starts, groups[1:])))
        names = list(map(topics.__getitem__, by_topic[starts].tolist()))
        holders = by_member[starts]
        members = _bounds(holders)  # one run of groups per member
        for m, a, b in zip(holders[members[:-1]].tolist(), members, members[1:], strict=False):
            answer[member_ids[m]] = dict(zip(names[a:b], lists[a:b], strict=True))
        return answer


def _by_member(members: npt.NDArray[np.int64]) -> npt.NDArray[np.intp]:
    """The stable order of ``members`` (member numbers); a radix sort when they fit 16 bits."""
    if len(members) and int(members.max()) < 2**16:
        return members.astype(np.uint16).argsort(kind="stable")
    return members.argsort(kind="stable")


def _bounds(*keys: npt.NDArray[np.int64]) -> list[int]:
    """Where runs of equal keys (all of ``keys`` equal) start, and the length: [0, ..., n]."""
    first = keys[0]
    change = np.zeros(max(len(first) - 1, 0), dtype=bool)
    for key in keys:
        change |= key[1:] != key[:-1]
    return [0, *(np.flatnonzero(change) + 1).tolist(), len(first)]
