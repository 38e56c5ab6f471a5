"""Reading a ``packed`` answer in bulk: each member's two arrays, checked as whole arrays.

In the ``packed`` answer form (what the shim asks for with the ``fast`` extra) the
answer carries ``topics`` and maps each member to ``{"topic_indices": ...,
"partitions": ...}``: two equally long base64 arrays of unsigned 32-bit little-endian
integers, element ``i`` of both one partition given to the member, in ascending (topic
index, partition) order. msgspec decodes the base64 straight into bytes, and NumPy views
all members' bytes as two arrays of the group: every rule of
:mod:`lagassign_client.answer` is then a handful of array operations, whatever the group's
size, and Python objects are made only for the assignment handed to the client library.

An answer that is not a well-formed packed answer (a shape or an order the contract does
not allow) is left to the general path, which reads it value by value and names the
problem; an answer that breaks a rule is refused here with the same message the general
path gives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lagassign_client import wire
from lagassign_client.errors import WITHHELD, InvalidAnswer
from lagassign_client.group import Assignment, GroupView

try:
    import msgspec
    import numpy as np
except ImportError:  # without the fast extra: the shim asks for the indexed form
    msgspec = None  # type: ignore[assignment]
    np = None  # type: ignore[assignment]

#: Both arrays' element: unsigned 32-bit, little-endian.
ELEMENT = "<u4"
ELEMENT_BYTES = 4

if msgspec is not None:

    class _PackedMember(msgspec.Struct, forbid_unknown_fields=True, gc=False):
        topic_indices: bytes
        partitions: bytes

    class _PackedAnswer(msgspec.Struct, gc=False):
        """A packed answer's shape; anything else takes the general path."""

        topics: list[str]
        assignment: dict[str, _PackedMember]
        revoked: dict[str, _PackedMember] | None = None
        strategy: Any = None
        lag: Any = None
        stats: Any = None

    _decode_packed = msgspec.json.Decoder(_PackedAnswer).decode


class _Arrays:
    """All members' partitions as two arrays of the group, members one after the other."""

    def __init__(self, members: Mapping[str, Any]) -> None:
        self.member_ids = list(members)
        self.topic_index = np.frombuffer(
            b"".join(m.topic_indices for m in members.values()), ELEMENT
        )
        self.partition = np.frombuffer(b"".join(m.partitions for m in members.values()), ELEMENT)
        self.counts = np.asarray([len(m.partitions) for m in members.values()], dtype=np.int64)
        self.counts //= ELEMENT_BYTES
        self.ends = np.cumsum(self.counts)
        starts = self.ends - self.counts
        #: Whether element i begins a member's partitions.
        self.first = np.zeros(len(self.partition), dtype=bool)
        self.first[starts[self.counts > 0]] = True

    def member_at(self, i: int) -> str:
        return self.member_ids[int(np.searchsorted(self.ends, i, side="right"))]

    def ascending(self) -> bool:
        """Whether each member's (topic index, partition) pairs strictly ascend."""
        key = (self.topic_index.astype(np.int64) << 32) | self.partition
        return bool(np.all((np.diff(key) > 0) | self.first[1:]))


def _well_formed(answer: Any) -> _Arrays | None:
    names = answer.topics
    if len(set(names)) != len(names):
        return None
    members = answer.assignment
    for member in (*members.values(), *(answer.revoked or {}).values()):
        size = len(member.partitions)
        if len(member.topic_indices) != size or size % ELEMENT_BYTES:
            return None
    arrays = _Arrays(members)
    if len(arrays.topic_index) and int(arrays.topic_index.max()) >= len(names):
        return None
    return arrays if arrays.ascending() else None


def read_packed(raw: bytes, view: GroupView) -> tuple[Assignment, dict[str, Any]] | None:
    """The checked assignment of a well-formed packed answer and its other fields
    (``strategy``, ``lag``, ``stats``), or None for the general path.

    Raises :class:`InvalidAnswer` when the answer breaks a rule.
    """
    if wire.CODEC != "msgspec" or np is None:
        return None
    try:
        answer = _decode_packed(raw)
    except msgspec.DecodeError:  # not this shape: the general path says what is wrong
        return None
    arrays = _well_formed(answer)
    if arrays is None:
        return None
    if any(member.partitions for member in (answer.revoked or {}).values()):
        raise InvalidAnswer(WITHHELD)
    topics_of = view.answered_members(arrays.member_ids)
    _check(view, answer.topics, arrays, topics_of)
    rest = {"strategy": answer.strategy, "lag": answer.lag, "stats": answer.stats}
    return _assignment(view, answer.topics, arrays), rest


def _first(where: Any) -> int | None:
    """The first position where the boolean array ``where`` is true, or None."""
    found = np.flatnonzero(where)
    return int(found[0]) if len(found) else None


def _check(
    view: GroupView, names: list[str], arrays: _Arrays, topics_of: Mapping[str, tuple[str, ...]]
) -> None:
    """Each partition of a known topic, to a subscriber, exactly once, none left out."""
    topic_index, partition = arrays.topic_index, arrays.partition
    known = view.partitions
    # Partition p of topic t is number first_number[t] + p of the group.
    first_number: dict[str, int] = {}
    total = 0
    for topic, count in known.items():
        first_number[topic] = total
        total += count
    size = np.asarray([known.get(name, -1) for name in names], dtype=np.int64)[topic_index]
    if (i := _first(size < 0)) is not None:
        name = names[topic_index[i]]
        raise InvalidAnswer(f"the answer gives unknown topic {name!r} to {arrays.member_at(i)!r}")
    subscriptions: dict[tuple[str, ...], int] = {}
    subscription_of = [
        subscriptions.setdefault(topics_of[m], len(subscriptions)) for m in arrays.member_ids
    ]
    allowed = np.zeros((len(subscriptions), len(names)), dtype=bool)
    for topics, row in subscriptions.items():
        allowed[row] = [name in topics for name in names]
    if not allowed.all():
        member_subscription = np.repeat(np.asarray(subscription_of, dtype=np.intp), arrays.counts)
        if (i := _first(~allowed[member_subscription, topic_index])) is not None:
            name = names[topic_index[i]]
            raise InvalidAnswer(
                f"the answer gives {name!r} to {arrays.member_at(i)!r}, not subscribed"
            )
    if (i := _first(partition >= size)) is not None:
        where = f"{names[topic_index[i]]}-{partition[i]}"
        raise InvalidAnswer(f"the answer gives unknown partition {where}")
    firsts = np.asarray([first_number.get(name, 0) for name in names], dtype=np.int64)
    numbers = firsts[topic_index] + partition
    placed = np.bincount(numbers, minlength=total)
    if (number := _first(placed > 1)) is not None:
        a, b = np.flatnonzero(numbers == number)[:2].tolist()
        where = f"{names[topic_index[a]]}-{partition[a]}"
        raise InvalidAnswer(
            f"the answer gives {where} to both {arrays.member_at(a)!r} and {arrays.member_at(b)!r}"
        )
    for topic in sorted(set().union(*topics_of.values())):
        first = first_number[topic]
        left = np.flatnonzero(placed[first : first + known[topic]] == 0)
        if len(left):
            raise InvalidAnswer(
                f"the answer leaves {topic} partitions {left[:10].tolist()} unassigned"
            )


def _assignment(view: GroupView, names: list[str], arrays: _Arrays) -> Assignment:
    """Per member its ``(topic, partition ids)`` pairs, topics in name order, built in bulk:
    one tuple per topic, each partition id made once."""
    topic_index, partition = arrays.topic_index, arrays.partition
    if names != sorted(names):
        member_of = np.repeat(np.arange(len(arrays.member_ids)), arrays.counts)
        rank = np.empty(len(names), dtype=np.int64)
        rank[np.argsort(np.asarray(names, dtype=object))] = np.arange(len(names))
        order = np.lexsort((partition, rank[topic_index], member_of))
        topic_index, partition = topic_index[order], partition[order]
    run_start = arrays.first.copy()
    if len(run_start):
        run_start[0] = True
        run_start[1:] |= topic_index[1:] != topic_index[:-1]
    if run_start.all():  # one partition per topic and member: every run a 1-tuple
        # Each id's 1-tuple made once and shared; the numbers read from the arrays as they
        # are used (the arrays' memoryviews), not kept in lists of their own.
        singles = list(zip(range(int(partition.max(initial=0)) + 1)))
        runs: list[tuple[str, Sequence[int]]] = list(
            zip(
                map(names.__getitem__, topic_index.astype(np.uint32).data),
                map(singles.__getitem__, partition.astype(np.uint32).data),
                strict=True,
            )
        )
        run_ends = arrays.ends.tolist()
    else:
        ids = partition.tolist()
        starts = np.flatnonzero(run_start)
        ends = [*starts[1:].tolist(), len(ids)]
        runs = list(
            zip(
                map(names.__getitem__, topic_index[starts].tolist()),
                map(tuple, map(ids.__getitem__, map(slice, starts.tolist(), ends))),
                strict=True,
            )
        )
        run_ends = np.searchsorted(starts, arrays.ends).tolist()
    assignment: Assignment = {s.member_id: [] for s in view.subscribers}
    begin = 0
    for member_id, end in zip(arrays.member_ids, run_ends, strict=True):
        assignment[member_id] = runs[begin:end]
        begin = end
    return assignment
