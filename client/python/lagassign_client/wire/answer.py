"""Reading the sidecar's ``packed`` answer and checking it against the leader's own metadata.

The shim asks for the ``packed`` answer form (``docs/http-api.md``): beside ``topics``
(the topic names), each member of ``assignment`` and ``revoked`` is ``{"topic_indices":
"<base64>", "partitions": "<base64>"}``, two equally long arrays of unsigned 32-bit
little-endian integers, element ``i`` of both one partition, in strictly ascending (topic
index, partition) order. A million partitions are a few thousand strings: each array is
one :func:`base64.b64decode` and one :meth:`memoryview.cast`, and every check below is
a pass of built-ins (``map``, ``all``, ``set``) over each member's two lists: no Python
loop runs per partition, and NumPy is not needed. With NumPy installed (the ``fast``
extra) the same checks run instead as array operations over the whole group
(:mod:`lagassign_client.wire.answer_arrays`): 0.29 s against 0.48 s at 2,000 members x
1,000,000 partitions.

An answer is used only when every member the leader asked about is present, every
partition of every subscribed topic is given exactly once, only to a member subscribed to
its topic, and nothing unknown appears. The rebalance is eager, so nothing may be
withheld in ``revoked``. The checks run in bulk: each partition becomes one int, its
number in the group, and one byte per partition of the group shows any partition given
twice or left out; the partition-by-partition search runs only to name a problem found.
"""

from __future__ import annotations

import base64
import binascii
import sys
from array import array
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress, islice, repeat
from operator import add, eq, ge, itemgetter, lt, ne, sub
from typing import Any

from lagassign_client.errors import LAG_BLIND, LAG_PARTIAL, WITHHELD, InvalidAnswer, MalformedAnswer
from lagassign_client.wire import answer_arrays, codec
from lagassign_client.wire.answer_arrays import NOT_ASCENDING, NOT_IN_TOPICS, Packed
from lagassign_client.wire.codec import paused_gc
from lagassign_client.wire.group import Assignment, GroupView


@dataclass(frozen=True, slots=True)
class AnswerLag:
    """What the answer says of the lag it balanced: where from, and how much was known.

    ``source`` is ``request``, ``kafka``, ``forecast`` or ``none`` (no lag at all);
    ``None`` when the answer does not say.
    """

    source: str | None
    complete: bool
    unknown_partitions: int
    max_lag: int | None = None
    mean_lag: float | None = None

    def blindness(self) -> str | None:
        """Why the answer was lag-blind (``lag_blind``) or partly (``lag_partial``), or None."""
        if self.source is None or self.source == "none":
            return LAG_BLIND
        if not self.complete or self.unknown_partitions > 0:
            return LAG_PARTIAL
        return None

    def describe(self) -> str:
        if self.source is None:
            return "the answer does not say which lag it balanced"
        if self.source == "none":
            return "the sidecar saw no lag for the group (lag.source=none)"
        return (
            f"the sidecar assumed the lag of {self.unknown_partitions} partition(s)"
            f" (lag.source={self.source}, lag.complete={str(self.complete).lower()})"
        )


@dataclass(frozen=True, slots=True)
class SidecarAnswer:
    """A checked answer: every subscriber listed, its topics in name order, ids ascending."""

    assignment: Assignment
    strategy: str | None
    lag: AnswerLag = AnswerLag(source=None, complete=False, unknown_partitions=0)


_ARRAYS = ("topic_indices", "partitions")
_PACKED = 'an object of two base64 arrays, "topic_indices" and "partitions"'
_LITTLE_ENDIAN = sys.byteorder == "little"
assert array("I").itemsize == 4, "the packed form's elements are 32-bit"


@dataclass(frozen=True, slots=True)
class _Member:
    """One member's partitions: element k is partition ``partitions[k]`` of the topic at
    ``topic_indices[k]`` of the answer's ``topics``, in strictly ascending (index, id) order.

    A run is the elements of one topic: run r starts at ``starts[r]``, ends at ``ends[r]``,
    and is of the topic at index ``run_topics[r]``.
    """

    topic_indices: list[int]
    partitions: list[int]
    starts: list[int]
    ends: list[int]
    run_topics: list[int]


def _integers(raw: bytes) -> list[int]:
    """The unsigned 32-bit little-endian integers of ``raw``."""
    if _LITTLE_ENDIAN:
        return memoryview(raw).cast("I").tolist()
    values = array("I", raw)
    values.byteswap()
    return values.tolist()


def _array(value: object, where: str) -> bytes:
    """The bytes of one base64 array, whole 4-byte integers."""
    if type(value) is not str:
        raise MalformedAnswer(f"{where} is not a base64 string")
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise MalformedAnswer(f"{where} is not base64 (RFC 4648, with padding)") from None
    if len(raw) % 4:
        raise MalformedAnswer(f"{where} is {len(raw)} bytes, not whole 4-byte integers")
    return raw


def _packed(value: object, where: str) -> Packed:
    """One member's two arrays as bytes, equally long."""
    if type(value) is not dict or value.keys() != set(_ARRAYS):
        raise MalformedAnswer(f"{where} is not {_PACKED}")
    indices = _array(value["topic_indices"], f"{where}.topic_indices")
    ids = _array(value["partitions"], f"{where}.partitions")
    if len(indices) != len(ids):
        raise MalformedAnswer(
            f"{where} has {len(indices) // 4} topic indices but {len(ids) // 4} partitions"
        )
    return Packed(where, indices, ids)


def _member(packed: Packed, topics: int) -> _Member:
    """One member's two arrays as lists, their order checked with built-ins over them."""
    indices, ids = _integers(packed.topic_indices), _integers(packed.partitions)
    size = len(ids)
    if not size:
        return _Member(indices, ids, [], [], [])
    # The runs of one topic index each; the indices ascend when the runs' topics do, and
    # the ids when each rises wherever the index stays.
    starts = [0, *compress(range(1, size), map(ne, indices, islice(indices, 1, None)))]
    run_topics = list(map(indices.__getitem__, starts))
    rises = compress(map(lt, ids, islice(ids, 1, None)), map(eq, indices, islice(indices, 1, None)))
    if not all(map(lt, run_topics, islice(run_topics, 1, None))) or not all(rises):
        raise MalformedAnswer(f"{packed.where} {NOT_ASCENDING}")
    if run_topics[-1] >= topics:
        raise MalformedAnswer(f"{packed.where} {NOT_IN_TOPICS}")
    return _Member(indices, ids, starts, [*starts[1:], size], run_topics)


def _topic_names(body: dict[str, Any]) -> list[str]:
    names = body.get("topics")
    if type(names) is not list or not set(map(type, names)) <= {str}:
        raise MalformedAnswer("'topics' is not a list of topic names")
    if len(set(names)) != len(names):
        raise MalformedAnswer("'topics' names a topic twice")
    return names


def _members(body: dict[str, Any], key: str) -> dict[str, Packed]:
    value = body.get(key)
    if type(value) is not dict:
        raise MalformedAnswer(f"{key!r} is not an object")
    return {m: _packed(arrays, f"{key}[{m!r}]") for m, arrays in value.items()}


def _given_twice(names: list[str], given: dict[str, _Member]) -> str:
    owner: dict[tuple[str, int], str] = {}
    for member_id, member in given.items():
        for i, p in zip(member.topic_indices, member.partitions, strict=True):
            earlier = owner.get((names[i], p))
            if earlier is not None:
                return f"{names[i]}-{p} to both {earlier!r} and {member_id!r}"
            owner[(names[i], p)] = member_id
    raise AssertionError("no partition given twice")


def _check(
    view: GroupView,
    names: list[str],
    given: dict[str, _Member],
    topics_of: dict[str, tuple[str, ...]],
) -> None:
    """Every rule of the module's docstring, in bulk; the slow search only to name a problem."""
    first_id: dict[str, int] = {}
    total = 0
    for topic, count in view.partitions.items():
        first_id[topic] = total
        total += count
    # Partition p of topic t is number first_id[t] + p of the group: one int per partition.
    offsets = [first_id.get(name, -1) for name in names]
    counts = [view.partitions.get(name, 0) for name in names]
    # Below the smallest partition count, no partition id can be beyond its topic's.
    smallest = min(counts, default=0)
    allowed_of: dict[tuple[str, ...], set[int]] = {}
    placed = bytearray(total)
    place = placed.__setitem__
    given_count = 0
    for member_id, member in given.items():
        indices, ids = member.topic_indices, member.partitions
        subscribed = topics_of[member_id]
        allowed = allowed_of.get(subscribed)
        if allowed is None:
            topics = set(subscribed)
            allowed = allowed_of[subscribed] = {i for i, n in enumerate(names) if n in topics}
        if not allowed.issuperset(member.run_topics):
            for i in member.run_topics:
                if offsets[i] < 0:
                    raise InvalidAnswer(
                        f"the answer gives unknown topic {names[i]!r} to {member_id!r}"
                    )
                if i not in allowed:
                    raise InvalidAnswer(
                        f"the answer gives {names[i]!r} to {member_id!r}, not subscribed"
                    )
        largest = map(ids.__getitem__, map(sub, member.ends, repeat(1)))
        if max(ids, default=0) >= smallest and any(
            map(ge, largest, map(counts.__getitem__, member.run_topics))
        ):
            i, p = next((i, p) for i, p in zip(indices, ids, strict=True) if p >= counts[i])
            raise InvalidAnswer(f"the answer gives unknown partition {names[i]}-{p}")
        deque(map(place, map(add, map(offsets.__getitem__, indices), ids), repeat(1)), maxlen=0)
        given_count += len(ids)
    distinct = total - placed.count(0)
    if distinct != given_count:
        raise InvalidAnswer(f"the answer gives {_given_twice(names, given)}")
    subscribed_topics = set().union(*topics_of.values())
    if distinct != sum(view.partitions[t] for t in subscribed_topics):
        for topic in sorted(subscribed_topics):
            first = first_id[topic]
            left = [p for p in range(view.partitions[topic]) if not placed[first + p]]
            if left:
                raise InvalidAnswer(f"the answer leaves {topic} partitions {left[:10]} unassigned")


def _pairs(
    member: _Member, names: list[str], singles: list[tuple[int]]
) -> list[tuple[str, Sequence[int]]]:
    """The member's ``(topic, partition ids)`` pairs in the answer's topic order, built by
    built-ins: with one partition per topic each id's 1-tuple is shared (``singles``)."""
    topics = map(names.__getitem__, member.run_topics)
    ids = member.partitions
    if len(member.starts) == len(ids):
        return list(zip(topics, map(singles.__getitem__, ids), strict=True))
    runs = map(tuple, map(ids.__getitem__, map(slice, member.starts, member.ends)))
    return list(zip(topics, runs, strict=True))


def _assignment(view: GroupView, names: list[str], packed: dict[str, Packed]) -> Assignment:
    """The checked assignment, with the standard library alone."""
    given = {m: _member(arrays, len(names)) for m, arrays in packed.items()}
    topics_of = view.answered_members(given)
    _check(view, names, given, topics_of)
    assignment: Assignment = {s.member_id: [] for s in view.subscribers}
    in_name_order = names == sorted(names)
    singles = list(zip(range(max(view.partitions.values(), default=0))))
    for member_id, member in given.items():
        pairs = _pairs(member, names, singles)
        if not in_name_order:
            pairs.sort(key=itemgetter(0))
        assignment[member_id] = pairs
    return assignment


def _read(raw: bytes, view: GroupView) -> tuple[Assignment, dict[str, Any]]:
    try:
        body = codec.loads(raw)
    except ValueError as exc:
        raise MalformedAnswer(f"the answer is not JSON: {exc}") from None
    if type(body) is not dict or type(body.get("assignment")) is not dict:
        raise MalformedAnswer("the answer has no 'assignment' object")
    names = _topic_names(body)
    given = _members(body, "assignment")
    withheld = {} if body.get("revoked") is None else _members(body, "revoked")
    if any(arrays.partitions for arrays in withheld.values()):
        raise InvalidAnswer(WITHHELD)
    if answer_arrays.AVAILABLE:
        return answer_arrays.assignment(view, names, given), body
    return _assignment(view, names, given), body


def read_answer(raw: bytes, view: GroupView, *, pause_gc: bool = False) -> SidecarAnswer:
    """Parse and check one ``packed`` answer for ``view``.

    Raises :class:`MalformedAnswer` when it is not the answer's JSON shape and
    :class:`InvalidAnswer` when it breaks the rules above. ``pause_gc``: read with the
    cyclic collector paused (:func:`lagassign_client.wire.codec.paused_gc`).
    """
    with paused_gc(pause_gc):
        assignment, body = _read(raw, view)
    strategy = body.get("strategy")
    return SidecarAnswer(
        assignment=assignment,
        strategy=strategy if isinstance(strategy, str) else None,
        lag=_lag(body),
    )


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _lag(body: dict[str, Any]) -> AnswerLag:
    """The answer's ``lag`` and ``stats`` as far as they have the contract's shape."""
    lag = body.get("lag")
    stats = body.get("stats")
    stats = stats if isinstance(stats, dict) else {}
    max_lag = _number(stats.get("max_lag"))
    mean_lag = _number(stats.get("mean_lag"))
    worst = None if max_lag is None else int(max_lag)
    if not isinstance(lag, dict) or not isinstance(lag.get("source"), str):
        return AnswerLag(
            None, complete=False, unknown_partitions=0, max_lag=worst, mean_lag=mean_lag
        )
    unknown = _number(lag.get("unknown_partitions"))
    return AnswerLag(
        source=lag["source"],
        complete=lag.get("complete") is True,
        unknown_partitions=0 if unknown is None else int(unknown),
        max_lag=worst,
        mean_lag=mean_lag,
    )
