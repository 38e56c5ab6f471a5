"""Reading the sidecar's answer and checking it against the leader's own metadata.

With the ``fast`` extra the shim asks for the ``packed`` answer form (each member's
partitions as two base64 arrays beside a ``topics`` list), read and checked as whole
arrays (:mod:`lagassign_client.packed_answer`); without it, for the ``indexed`` form
(``{member: [[topic_index, [partition, ...]], ...]}`` beside ``topics``). It reads the
``topics`` form (``{member: {topic: [partition, ...]}}``) as well. With msgspec a
well-formed ``indexed`` answer is decoded by a typed schema straight into each member's
``(topic_index, partition ids)`` tuples; anything else takes the general path, which
checks the shape step by step and names each problem.

The checks run in bulk, with built-ins over whole lists: each partition becomes one
int, its number in the group, and one byte per partition of the group shows any
partition given twice or left out. The partition-by-partition search runs only to
name a problem found. The checked assignment is in the client libraries' own shape:
per member, its ``(topic, partition ids)`` pairs, topics in name order.

An answer is used only when every member the leader asked about is present,
every partition of every subscribed topic is given exactly once, only to a
member subscribed to its topic, and nothing unknown appears. The rebalance is
eager, so nothing may be withheld in ``revoked``.
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, groupby, islice, repeat
from operator import add, ge, itemgetter, lt
from typing import Annotated, Any, TypeVar

from lagassign_client import wire
from lagassign_client.errors import (
    LAG_BLIND,
    LAG_PARTIAL,
    WITHHELD,
    InvalidAnswer,
    MalformedAnswer,
)
from lagassign_client.group import Assignment, GroupView
from lagassign_client.packed_answer import read_packed
from lagassign_client.wire import paused_gc

try:
    import msgspec
except ImportError:  # without the fast extra: every answer takes the general path
    msgspec = None  # type: ignore[assignment]


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


_Ordered = TypeVar("_Ordered", int, str, tuple[int, int])
_PAIRS = "a list of [topic_index, [partition, ...]] pairs"
_PACKED = 'an object of two base64 arrays, "topic_indices" and "partitions"'
_ARRAYS = ("topic_indices", "partitions")
_first = itemgetter(0)
_second = itemgetter(1)

# Per member: indices into the answer's topic names, strictly ascending, and the partition
# ids (a tuple, never empty: empty lists say nothing and are left out) of each.
Pairs = tuple[Sequence[int], Sequence[Sequence[int]]]


def _ascending(values: Sequence[_Ordered]) -> bool:
    """Whether ``values`` is strictly ascending (so none is listed twice)."""
    return all(map(lt, values, islice(values, 1, None)))


def _nonempty(indices: Sequence[int], partitions: Sequence[Sequence[int]]) -> Pairs:
    """The pairs without those with no partition ids."""
    if () not in partitions:
        return indices, partitions
    kept = [(i, ids) for i, ids in zip(indices, partitions, strict=True) if ids]
    return [i for i, _ in kept], [ids for _, ids in kept]


def _indexed_pairs(value: object, where: str, topics: int) -> Pairs:
    """One member's ``[[topic_index, [partition, ...]], ...]``, its shape checked in bulk."""
    if type(value) is not list:
        raise MalformedAnswer(f"{where} is not {_PAIRS}")
    if not value:
        return [], []
    if set(map(type, value)) != {list} or set(map(len, value)) != {2}:
        raise MalformedAnswer(f"{where} is not {_PAIRS}")
    indices: list[int] = list(map(_first, value))
    partitions: list[Sequence[int]] = list(map(_second, value))
    if set(map(type, indices)) != {int} or min(indices) < 0 or max(indices) >= topics:
        raise MalformedAnswer(f"{where} names a topic index that is not in 'topics'")
    if set(map(type, partitions)) != {list} or not set(
        map(type, chain.from_iterable(partitions))
    ) <= {int}:
        raise MalformedAnswer(f"{where} is not {_PAIRS} (partition ids are integers)")
    if len(set(indices)) != len(indices):
        raise MalformedAnswer(f"{where} lists a topic index twice")
    if not _ascending(indices):
        order = sorted(range(len(indices)), key=indices.__getitem__)
        indices = [indices[k] for k in order]
        partitions = [partitions[k] for k in order]
    return _nonempty(indices, list(map(tuple, partitions)))


def _packed_pairs(value: object, where: str, topics: int) -> Pairs:
    """One member's ``{"topic_indices": ..., "partitions": ...}`` (the ``packed`` form)."""
    if type(value) is not dict or set(value) != set(_ARRAYS):
        raise MalformedAnswer(f"{where} is not {_PACKED}")
    try:
        arrays = [base64.b64decode(value[key], validate=True) for key in _ARRAYS]
    except (binascii.Error, TypeError, ValueError):
        raise MalformedAnswer(f"{where} is not {_PACKED}") from None
    if len(arrays[0]) != len(arrays[1]) or len(arrays[0]) % 4:
        raise MalformedAnswer(
            f"{where}: 'topic_indices' and 'partitions' are not equally many 32-bit numbers"
        )
    count = len(arrays[0]) // 4
    indices, ids = (struct.unpack(f"<{count}I", array) for array in arrays)
    if indices and max(indices) >= topics:
        raise MalformedAnswer(f"{where} names a topic index that is not in 'topics'")
    pairs = list(zip(indices, ids, strict=True))
    if not _ascending(pairs):
        raise MalformedAnswer(f"{where} is not in ascending (topic index, partition) order")
    runs = [(i, tuple(p for _, p in run)) for i, run in groupby(pairs, key=_first)]
    return list(map(_first, runs)), list(map(_second, runs))


def _nested_pairs(value: object, where: str, index: dict[str, int]) -> Pairs:
    """One member's ``{topic: [partition, ...]}`` (the ``topics`` answer form)."""
    if not isinstance(value, dict):
        raise MalformedAnswer(f"{where} is not an object")
    given = sorted((index[topic], ids, topic) for topic, ids in value.items())
    for _, ids, topic in given:
        if not isinstance(ids, list) or not all(type(p) is int for p in ids):
            raise MalformedAnswer(f"{where}[{topic!r}] is not a list of partition ids")
    return _nonempty([i for i, _, _ in given], [tuple(sorted(ids)) for _, ids, _ in given])


def _given(body: dict[str, Any], key: str) -> tuple[list[str], dict[str, Pairs]]:
    """The topic names and, per member, the pairs of ``body[key]`` in any answer form.

    An answer with a top-level ``topics`` list is in the ``packed`` form (members given
    as objects) or the ``indexed`` form; one without is in the ``topics`` form, read the
    same way (its topic names sorted).
    """
    value = body.get(key)
    if not isinstance(value, dict):
        raise MalformedAnswer(f"{key!r} is not an object")
    if "topics" in body:
        names = body["topics"]
        if type(names) is not list or not set(map(type, names)) <= {str}:
            raise MalformedAnswer("'topics' is not a list of topic names")
        if len(set(names)) != len(names):
            raise MalformedAnswer("'topics' names a topic twice")
        packed = any(type(pairs) is dict for pairs in value.values())
        read = _packed_pairs if packed else _indexed_pairs
        return names, {m: read(pairs, f"{key}[{m!r}]", len(names)) for m, pairs in value.items()}
    members = [t for t in value.values() if isinstance(t, dict)]
    names = sorted(set[str]().union(*members))
    index = {name: i for i, name in enumerate(names)}
    return names, {m: _nested_pairs(t, f"{key}[{m!r}]", index) for m, t in value.items()}


def _withheld(body: dict[str, Any]) -> bool:
    """Whether the answer holds back any partition in ``revoked``."""
    if body.get("revoked") is None:
        return False
    _, revoked = _given(body, "revoked")
    return any(indices for indices, _ in revoked.values())


def _unknown_partition(names: list[str], pairs: Pairs, counts: list[int]) -> str:
    for i, ids in zip(*pairs, strict=True):
        for p in ids:
            if not 0 <= p < counts[i]:
                return f"{names[i]}-{p}"
    raise AssertionError("no partition out of range")


def _given_twice(names: list[str], given: dict[str, Pairs]) -> str:
    owner: dict[tuple[str, int], str] = {}
    for member_id, pairs in given.items():
        for i, ids in zip(*pairs, strict=True):
            for p in ids:
                earlier = owner.get((names[i], p))
                if earlier is not None:
                    return f"{names[i]}-{p} to both {earlier!r} and {member_id!r}"
                owner[(names[i], p)] = member_id
    raise AssertionError("no partition given twice")


def _check(
    view: GroupView, names: list[str], given: dict[str, Pairs], nonnegative: bool = False
) -> None:
    """Every rule of the module's docstring, in bulk; the slow search only to name a problem.

    ``nonnegative``: the decoder has already refused negative partition ids.
    """
    topics_of = view.answered_members(given)
    counts = [view.partitions.get(name, 0) for name in names]
    first_id: dict[str, int] = {}
    total = 0
    for topic in view.partitions:
        first_id[topic] = total
        total += view.partitions[topic]
    # Partition p of topic t is number first_id[t] + p of the group: one int per partition.
    offsets = [first_id.get(name, -1) for name in names]
    # Below the smallest partition count, no partition id can be beyond its topic's.
    smallest = min(counts, default=0)
    allowed_of: dict[tuple[str, ...], set[int] | None] = {}
    # One byte per partition of the group, set for each number given; and how many given.
    placed = bytearray(total)
    place = placed.__setitem__
    given_count = 0
    for member_id, (indices, partitions) in given.items():
        if not indices:
            continue
        subscribed = topics_of[member_id]
        if subscribed not in allowed_of:
            topics = set(subscribed)
            indexes = {i for i, name in enumerate(names) if name in topics}
            allowed_of[subscribed] = None if len(indexes) == len(names) else indexes
        allowed = allowed_of[subscribed]
        if allowed is not None and not allowed.issuperset(indices):
            for i in indices:
                if names[i] not in view.partitions:
                    raise InvalidAnswer(
                        f"the answer gives unknown topic {names[i]!r} to {member_id!r}"
                    )
                if i not in allowed:
                    raise InvalidAnswer(
                        f"the answer gives {names[i]!r} to {member_id!r}, not subscribed"
                    )
        ids = list(chain.from_iterable(partitions))
        if (not nonnegative and min(ids) < 0) or (
            max(ids) >= smallest
            and any(map(ge, map(max, partitions), map(counts.__getitem__, indices)))
        ):
            where = _unknown_partition(names, (indices, partitions), counts)
            raise InvalidAnswer(f"the answer gives unknown partition {where}")
        firsts: Iterable[int] = map(offsets.__getitem__, indices)
        if len(ids) != len(indices):  # some topic gives several ids: its offset repeated
            firsts = chain.from_iterable(map(repeat, firsts, map(len, partitions)))
        deque(map(place, map(add, firsts, ids), repeat(1)), maxlen=0)
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


if msgspec is not None:
    _Id = Annotated[int, msgspec.Meta(ge=0)]
    # [topic_index, [partition, ...]]: its ints checked by the decoder.
    _Pair = tuple[_Id, tuple[_Id, ...]]

    class _IndexedAnswer(msgspec.Struct, gc=False):
        """A well-formed answer in the ``indexed`` form; anything else takes the general path.

        Not tracked by the garbage collector: a million pairs would make every collection
        crawl."""

        topics: list[str]
        assignment: dict[str, list[_Pair]]
        revoked: dict[str, list[_Pair]] | None = None
        strategy: Any = None
        lag: Any = None
        stats: Any = None

    _decode_indexed = msgspec.json.Decoder(_IndexedAnswer).decode


def _read_indexed(raw: bytes) -> tuple[list[str], dict[str, Pairs], dict[str, Any]] | None:
    """A well-formed ``indexed`` answer decoded straight into pairs (with msgspec), or None.

    None as well for a valid answer out of the usual order (a member's topic indices not
    ascending): the general path reads it.
    """
    if wire.CODEC != "msgspec":
        return None
    try:
        answer = _decode_indexed(raw)
    except msgspec.DecodeError:  # not this shape: the general path says what is wrong
        return None
    names = answer.topics
    if len(set(names)) != len(names):
        return None
    given: dict[str, Pairs] = {}
    for member_id, pairs in answer.assignment.items():
        indices = list(map(_first, pairs))
        if indices and (not _ascending(indices) or indices[-1] >= len(names)):
            return None
        given[member_id] = _nonempty(indices, list(map(_second, pairs)))
    revoked = [p for pairs in (answer.revoked or {}).values() for p in pairs]
    if any(p[0] >= len(names) for p in revoked):
        return None
    withheld = any(p[1] for p in revoked)
    rest = {"strategy": answer.strategy, "lag": answer.lag, "stats": answer.stats}
    return names, given, {**rest, "withheld": withheld, "nonnegative": True}


def _read_general(raw: bytes) -> tuple[list[str], dict[str, Pairs], dict[str, Any]]:
    """Any answer, its shape checked step by step (each problem named)."""
    try:
        body = wire.loads(raw)
    except ValueError as exc:
        raise MalformedAnswer(f"the answer is not JSON: {exc}") from None
    if not isinstance(body, dict) or not isinstance(body.get("assignment"), dict):
        raise MalformedAnswer("the answer has no 'assignment' object")
    names, given = _given(body, "assignment")
    return names, given, {**body, "withheld": _withheld(body), "nonnegative": False}


def _read_any(raw: bytes, view: GroupView) -> tuple[Assignment, dict[str, Any]]:
    """The checked assignment of an answer in any form, and the answer's fields."""
    names, given, body = _read_indexed(raw) or _read_general(raw)
    if body["withheld"]:
        raise InvalidAnswer(WITHHELD)
    _check(view, names, given, nonnegative=body.get("nonnegative") is True)
    in_name_order = _ascending(names)
    assignment: Assignment = {s.member_id: [] for s in view.subscribers}
    for member_id, (indices, partitions) in given.items():
        pairs = list(zip(map(names.__getitem__, indices), partitions, strict=True))
        if not in_name_order:
            pairs.sort(key=_first)
        assignment[member_id] = pairs
    return assignment, body


def read_answer(raw: bytes, view: GroupView, *, pause_gc: bool = False) -> SidecarAnswer:
    """Parse and check one answer for ``view``, in any answer form.

    Raises :class:`MalformedAnswer` when it is not the answer's JSON shape and
    :class:`InvalidAnswer` when it breaks the rules above. Partition lists are as
    the answer gives them (ascending, by the contract); a ``topics``-form answer's
    are sorted here. ``pause_gc``: read with the cyclic collector paused
    (:func:`lagassign_client.wire.paused_gc`).
    """
    with paused_gc(pause_gc):
        packed = read_packed(raw, view)
        if packed is not None:
            assignment, body = packed
        else:
            assignment, body = _read_any(raw, view)
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
