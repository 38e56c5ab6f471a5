"""A short digest of a group's assignment, the same as the sidecar's ``assignment_digest``.

The first 16 hex digits of the SHA-256 of one line per assigned partition,
``member_id TAB topic TAB partition LF``, sorted by member id, topic and partition
number. Example: ``c-1`` holding ``t0-0`` and ``c-2`` holding ``t0-1`` hash
``"c-1\\tt0\\t0\\nc-2\\tt0\\t1\\n"`` to ``72ad50af9b0c62e8``. The rebalance advisor acts
only on advice about the assignment its member made as leader, so advice the sidecar
computed before the last rebalance never forces another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain, islice, repeat
from operator import itemgetter, lt
from typing import Any

_topic = itemgetter(0)
_ids = itemgetter(1)


def assignment_digest(assigned: Iterable[tuple[str, str, int]]) -> str:
    """The digest of (member id, topic, partition) triples."""
    text = "".join(f"{member}\t{topic}\t{p}\n" for member, topic, p in sorted(assigned))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# Partition ids below this are written from a shared table of their decimal texts.
NUMERALS_MAX = 1 << 16


def _member_lines(
    member: str, pairs: Iterable[tuple[str, Sequence[int]]], numerals: list[str]
) -> str:
    """One member's lines, in order, from its ``(topic, partition ids)`` pairs: built with
    built-ins over whole lists, one string per partition (a million partitions in well under
    a second, where one tuple and one sort key per partition took seconds).

    The usual assignment (topics already in name order, one id per topic) is read as it
    is, without a sort; ``numerals`` (the decimal texts of 0, 1, 2, ...) grows as needed and
    is shared by the members of one digest."""
    by_topic: list[tuple[str, Sequence[int]]] = list(pairs)
    topics = list(map(_topic, by_topic))
    if not all(map(lt, topics, islice(topics, 1, None))):  # topics out of order or repeated
        merged: dict[str, list[int]] = {}
        for topic, given in sorted(by_topic, key=_topic):
            merged.setdefault(topic, []).extend(given)
        by_topic = list(merged.items())
        topics = list(merged)
    given_ids: list[Sequence[int]] = list(map(_ids, by_topic))
    counts = list(map(len, given_ids))
    single = counts.count(1) == len(counts)
    if not single:
        given_ids = list(map(sorted, given_ids))
    ids = list(chain.from_iterable(given_ids))
    heads: Iterable[str] = [f"{member}\t{topic}\t" for topic in topics]
    if not single:  # some topic with several partitions (or none)
        heads = chain.from_iterable(map(repeat, heads, counts))
    texts: Iterable[str] = map(str, ids)
    if ids and min(ids) >= 0 and (top := max(ids)) < NUMERALS_MAX:
        if top >= len(numerals):
            numerals.extend(map(str, range(len(numerals), top + 1)))
        texts = map(numerals.__getitem__, ids)
    return "".join(chain.from_iterable(zip(heads, texts, repeat("\n"))))


def digest_of_assignments(assignments: Mapping[str, Any]) -> str:
    """The digest of a library's answer to ``assign()``: member id -> an object whose
    ``assignment`` lists the member's ``(topic, partition ids)`` pairs (aiokafka,
    kafka-python); the same as :func:`assignment_digest` of its triples."""
    digest = hashlib.sha256()
    numerals: list[str] = []
    for member in sorted(assignments):
        digest.update(_member_lines(member, assignments[member].assignment, numerals).encode())
    return digest.hexdigest()[:16]
