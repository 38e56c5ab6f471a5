"""The contract's reader of a ``packed`` answer: decode it, and refuse what the contract refuses.

A small, plain reader for the service's tests (the shims have their own): it decodes
an answer of ``POST /assign`` in the ``packed`` form to ``{member: {topic: [partition,
...]}}`` and checks it against the request it answers, by the rules every reader of
``contract/answers/`` applies:

- ``topics`` is the request's ``partitions`` keys, in their order;
- ``assignment`` names every member of the request and no other; ``revoked`` no other;
- each member is ``{"topic_indices", "partitions"}``: two strict base64 strings of
  equally many unsigned 32-bit little-endian numbers, every topic index within
  ``topics``, every partition within its topic's count, pairs strictly ascending;
- a partition is given only to a member subscribed to its topic, at most once, and
  every partition of a subscribed topic is given, except (cooperative) one withheld
  in ``revoked``; an eager answer withholds nothing.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import struct
from collections.abc import Mapping
from typing import Any

Nested = dict[str, dict[str, list[int]]]
ARRAYS = ("topic_indices", "partitions")


class RefusedAnswer(ValueError):
    """An answer the contract refuses; the message says why."""


def member_topics(request: Mapping[str, Any]) -> dict[str, list[str]]:
    """Member id -> its topics, from ``topics`` or the compact form's ``subscription``."""
    shared = request.get("subscriptions") or []
    return {
        m["member_id"]: m["topics"] if "topics" in m else shared[m["subscription"]]
        for m in request["members"]
    }


def decode_member(value: object, where: str, counts: list[int]) -> list[tuple[int, int]]:
    """One member's (topic index, partition) pairs, checked."""
    if type(value) is not dict or set(value) != set(ARRAYS):
        raise RefusedAnswer(f"{where} is not an object of topic_indices and partitions")
    arrays = []
    for key in ARRAYS:
        text = value[key]
        if type(text) is not str:
            raise RefusedAnswer(f"{where}.{key} is not a string")
        try:
            arrays.append(base64.b64decode(text, validate=True))
        except (binascii.Error, ValueError):
            raise RefusedAnswer(f"{where}.{key} is not base64") from None
    if len(arrays[0]) != len(arrays[1]) or len(arrays[0]) % 4:
        raise RefusedAnswer(f"{where}: the arrays are not equally many 32-bit numbers")
    count = len(arrays[0]) // 4
    indices, ids = (struct.unpack(f"<{count}I", array) for array in arrays)
    pairs = list(zip(indices, ids, strict=True))
    for (t0, p0), (t1, p1) in itertools.pairwise(pairs):
        if (t0, p0) >= (t1, p1):
            raise RefusedAnswer(f"{where} is not in ascending (topic index, partition) order")
    for t, p in pairs:
        if t >= len(counts):
            raise RefusedAnswer(f"{where} names topic index {t}, past 'topics'")
        if p >= counts[t]:
            raise RefusedAnswer(f"{where} names partition {p} of a topic of {counts[t]}")
    return pairs


def decode_side(
    answer: Mapping[str, Any], key: str, request: Mapping[str, Any]
) -> dict[str, list[tuple[int, int]]]:
    """``answer[key]`` (``assignment`` or ``revoked``) as each member's pairs."""
    value = answer.get(key)
    if type(value) is not dict:
        raise RefusedAnswer(f"{key!r} is not an object")
    members = member_topics(request)
    unknown = sorted(set(value) - set(members))
    if unknown:
        raise RefusedAnswer(f"{key!r} names members not in the request: {unknown}")
    counts = list(request["partitions"].values())
    return {m: decode_member(v, f"{key}[{m!r}]", counts) for m, v in value.items()}


def nested(pairs: Mapping[str, list[tuple[int, int]]], topics: list[str]) -> Nested:
    """Each member's pairs as ``{topic: [partition, ...]}`` (topics with nothing left out)."""
    out: Nested = {}
    for member, given in pairs.items():
        topics_of: dict[str, list[int]] = {}
        for t, p in given:
            topics_of.setdefault(topics[t], []).append(p)
        out[member] = topics_of
    return out


def read_packed(request: Mapping[str, Any], answer: object) -> tuple[Nested, Nested]:
    """The ``assignment`` and ``revoked`` of a packed ``answer`` to ``request``, checked;
    raises :class:`RefusedAnswer` for an answer the contract refuses."""
    if type(answer) is not dict:
        raise RefusedAnswer("the answer is not an object")
    topics = list(request["partitions"])
    if answer.get("topics") != topics:
        raise RefusedAnswer("'topics' is not the request's partitions keys in their order")
    given = decode_side(answer, "assignment", request)
    revoked = decode_side(answer, "revoked", request)
    members = member_topics(request)
    missing = sorted(set(members) - set(given))
    if missing:
        raise RefusedAnswer(f"'assignment' leaves out members: {missing}")
    owner: dict[tuple[int, int], str] = {}
    for member, pairs in given.items():
        for t, p in pairs:
            if topics[t] not in members[member]:
                raise RefusedAnswer(f"{topics[t]}-{p} is given to {member!r}, not subscribed")
            if (t, p) in owner:
                raise RefusedAnswer(f"{topics[t]}-{p} is given to {owner[t, p]!r} and {member!r}")
            owner[t, p] = member
    withheld = {pair for pairs in revoked.values() for pair in pairs}
    if withheld and request.get("protocol", "eager") != "cooperative":
        raise RefusedAnswer("an eager answer withholds partitions in 'revoked'")
    subscribed = {topic for ts in members.values() for topic in ts}
    for t, topic in enumerate(topics):
        for p in range(request["partitions"][topic] if topic in subscribed else 0):
            if (t, p) not in owner and (t, p) not in withheld:
                raise RefusedAnswer(f"{topic}-{p} is given to nobody")
    return nested(given, topics), nested(revoked, topics)
