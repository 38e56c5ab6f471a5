"""The three forms of an answer's ``assignment`` and ``revoked``, and the answer's bytes.

- ``topics`` (the default): ``{member_id: {topic: [partition, ...]}}``;
- ``indexed`` (asked by ``answer_form: "indexed"``): the answer carries ``topics``,
  the topic names in the order of the request's ``partitions`` keys, and each member
  maps to ``[[topic_index, [partition, ...]], ...]``, pairs in ascending topic index,
  topics the member got nothing of left out (a member with nothing has ``[]``).

Worked example: ``partitions`` ``{"b": 2, "a": 3}`` and the assignment
``{"m1": {"a": [0, 2], "b": [1]}, "m2": {"a": [1], "b": [0]}}`` is, indexed,
``topics: ["b", "a"]`` and ``{"m1": [[0, [1]], [1, [0, 2]]], "m2": [[0, [0]], [1, [1]]]}``.

- ``packed`` (asked by ``answer_form: "packed"``): ``topics`` as in the indexed form, and
  each member's partitions as two base64 arrays (:mod:`lagassign.assign.answer_packed`).

The bytes are msgspec's JSON encoding (compact, the same values as ``json.dumps``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import accumulate
from operator import itemgetter
from typing import Any, Literal

import msgspec
import numpy as np

from lagassign._native import assignment_json
from lagassign.assign.answer import Answer
from lagassign.assign.answer_packed import packed, packed_flat
from lagassign.assign.request_schema import AnswerForm
from lagassign.assign.topic_ids import keyed_by_topic_id
from lagassign.core.flat import FlatAssignment
from lagassign.core.model import Assignment

IndexedAssignment = dict[str, list[tuple[int, list[int]]]]

ENCODER = msgspec.json.Encoder()
_BY_TOPIC_INDEX = itemgetter(0)


def indexed(assignment: Assignment, index: Mapping[str, int]) -> IndexedAssignment:
    """``assignment`` with each topic replaced by its position in ``index``."""
    out: IndexedAssignment = {}
    for member_id, topics in assignment.items():
        pairs = [(index[topic], parts) for topic, parts in topics.items() if parts]
        pairs.sort(key=_BY_TOPIC_INDEX)
        out[member_id] = pairs
    return out


def with_answer_form(
    payload: dict[str, Any],
    topics: Sequence[str],
    labels: Mapping[str, str] | None = None,
    form: AnswerForm = "indexed",
) -> dict[str, Any]:
    """``payload`` in the indexed (or packed) form over ``topics`` (the request's
    ``partitions`` keys).

    ``labels`` renames topics in the answer's ``topics`` list (the topic-id form: name
    -> topic id); positions are the same either way.
    """
    index = {topic: i for i, topic in enumerate(topics)}
    named = list(topics) if labels is None else [labels.get(t, t) for t in topics]
    by_position = packed if form == "packed" else indexed
    out: dict[str, Any] = {}
    for key, value in payload.items():
        if key == "assignment":
            out["topics"] = named
            out[key] = by_position(value, index)
        elif key == "revoked":
            out[key] = by_position(value, index)
        else:
            out[key] = value
    return out


def encode_answer(payload: Mapping[str, Any]) -> bytes:
    """The answer's JSON bytes."""
    return ENCODER.encode(payload)


def answer_body(answer: Answer, topic_ids: Mapping[str, str] | None = None) -> bytes:
    """The JSON of ``answer`` in the form its request asked for.

    ``topic_ids`` (topic name -> id) labels the topics by id, for the topic-id form.
    An answer in its array form is written by the compiled writer straight from the
    array (:func:`flat_assignment_json`), never as a million Python lists.
    """
    flat = answer.result.flat
    if flat is not None:
        return _flat_answer_body(answer, flat, topic_ids)
    payload = answer.to_json()
    if answer.answer_form != "topics":
        payload = with_answer_form(payload, answer.request_topics, topic_ids, answer.answer_form)
    elif topic_ids is not None:
        payload = keyed_by_topic_id(payload, topic_ids)
    return encode_answer(payload)


def _flat_answer_body(
    answer: Answer, flat: FlatAssignment, topic_ids: Mapping[str, str] | None
) -> bytes:
    payload = answer.payload({})
    keys: Mapping[str, str | int]
    if answer.answer_form == "packed":
        payload = with_answer_form(payload, answer.request_topics, topic_ids, "packed")
        index = {topic: i for i, topic in enumerate(answer.request_topics)}
        payload["assignment"] = packed_flat(flat, index)
        return encode_answer(payload)
    if answer.answer_form == "indexed":
        payload = with_answer_form(payload, answer.request_topics, topic_ids)
        keys = {topic: i for i, topic in enumerate(answer.request_topics)}
    else:
        if topic_ids is not None:
            payload = keyed_by_topic_id(payload, topic_ids)
        keys = {t: t for t in flat.topics} if topic_ids is None else topic_ids
    written = flat_assignment_json(flat, answer.answer_form, keys)
    payload["assignment"] = msgspec.Raw(written)
    return encode_answer(payload)


def flat_assignment_json(
    flat: FlatAssignment, form: Literal["topics", "indexed"], keys: Mapping[str, str | int]
) -> bytes:
    """The ``assignment`` JSON of ``flat``, each topic written as its key (else its name).

    In the indexed form the keys are the topics' positions, and each member's pairs
    come in ascending position: the topics' runs of ``flat`` are put in that order first.
    """
    owner, starts = flat.owner, flat.starts
    order = list(range(len(flat.topics)))
    if form == "indexed":
        order.sort(key=lambda t: keys[flat.topics[t]])
        if order != sorted(order):
            owner = np.concatenate([owner[starts[t] : starts[t + 1]] for t in order])
            starts = tuple(accumulate((starts[t + 1] - starts[t] for t in order), initial=0))
    return assignment_json(
        owner,
        np.asarray(starts, dtype=np.int64),
        [ENCODER.encode(keys.get(flat.topics[t], flat.topics[t])) for t in order],
        [ENCODER.encode(member_id) for member_id in flat.member_ids],
        form,
    )
