"""An answer as one array: the member number of every partition, topics one after the other.

A strategy that works on numbered partitions (the balanced strategy does) hands
its answer over in this shape, and the nested ``{member: {topic: [partition]}}``
form is built from it only when someone asks for it: at a million partitions
that form is a million Python lists, while the statistics, the cooperative
withholding and the response's bytes can all be had from the array.

Partition ``p`` of ``topics[t]`` is flat partition ``starts[t] + p``; ``owner``
holds, per flat partition, the position in ``member_ids`` of the member that
gets it, or -1 when nobody gets it this round (withheld in the cooperative
protocol).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

# member id -> topic -> sorted partition ids (the same shape as ``model.Assignment``)
Nested = dict[str, dict[str, list[int]]]


@dataclass(frozen=True, slots=True, eq=False)
class FlatAssignment:
    """Member number per flat partition (-1: nobody), with the names the numbers stand for."""

    member_ids: tuple[str, ...]
    topics: tuple[str, ...]
    starts: tuple[int, ...]  # len(topics) + 1 flat starts, the last one the partition count
    owner: npt.NDArray[np.int32]

    @property
    def partition_count(self) -> int:
        return self.starts[-1]

    def topic_numbers(self) -> npt.NDArray[np.intp]:
        """Per flat partition, the number of its topic."""
        sizes = [b - a for a, b in zip(self.starts, self.starts[1:], strict=False)]
        numbers: npt.NDArray[np.intp] = np.repeat(np.arange(len(self.topics)), sizes)
        return numbers

    def nested(self) -> Nested:
        """Every member, each with its topics (in ``topics`` order) and sorted partition ids.

        Topics a member gets nothing of are left out. The partitions are grouped by
        (member, topic) in one stable sort, so the lists are built in bulk rather than
        one partition at a time.
        """
        topics, member_ids = self.topics, self.member_ids
        answer: Nested = {member_id: {} for member_id in member_ids}
        given = np.flatnonzero(self.owner >= 0)
        if not len(given):
            return answer
        owner = self.owner[given]
        # flat numbers run topic by topic: by member alone, stably, is by (member, topic, id)
        order = given[stable_member_order(owner)]
        topic_of = self.topic_numbers()[order]
        ids: list[int] = (order - np.asarray(self.starts[:-1], dtype=np.intp)[topic_of]).tolist()
        by_member = self.owner[order]
        groups = run_bounds(by_member, topic_of)  # one group per (member, topic)
        starts = groups[:-1]
        lists = list(map(ids.__getitem__, map(slice, starts, groups[1:])))
        names = list(map(topics.__getitem__, topic_of[starts].tolist()))
        holders = by_member[starts]
        members = run_bounds(holders)  # one run of groups per member
        for m, a, b in zip(holders[members[:-1]].tolist(), members, members[1:], strict=False):
            answer[member_ids[m]] = dict(zip(names[a:b], lists[a:b], strict=True))
        return answer

    def member_lag(self, lags: npt.NDArray[np.generic]) -> list[int]:
        """Per member, the lag sum of the partitions it gets (``lags`` per flat partition)."""
        given = self.owner >= 0
        if lags.dtype == np.object_:  # sums beyond int64: Python ints, the same rule
            totals = [0] * len(self.member_ids)
            for m, lag in zip(self.owner[given].tolist(), lags[given].tolist(), strict=True):
                totals[m] += lag
            return totals
        load = np.zeros(len(self.member_ids), dtype=np.int64)
        np.add.at(load, self.owner[given], lags[given])
        out: list[int] = load.tolist()
        return out


def stable_member_order(members: npt.NDArray[np.integer]) -> npt.NDArray[np.intp]:
    """The stable order of ``members`` (member numbers); a radix sort when they fit 16 bits."""
    if len(members) and int(members.max()) < 2**16:
        return members.astype(np.uint16).argsort(kind="stable")
    return members.argsort(kind="stable")


def run_bounds(*keys: npt.NDArray[np.integer]) -> list[int]:
    """Where runs of equal keys (all of ``keys`` equal) start, and the length: [0, ..., n]."""
    first = keys[0]
    change = np.zeros(max(len(first) - 1, 0), dtype=bool)
    for key in keys:
        change |= key[1:] != key[:-1]
    return [0, *(np.flatnonzero(change) + 1).tolist(), len(first)]
