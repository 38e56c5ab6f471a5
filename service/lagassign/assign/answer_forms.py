"""The two forms of an answer's ``assignment`` and ``revoked``, and the answer's bytes.

- ``topics`` (the default): ``{member_id: {topic: [partition, ...]}}``;
- ``indexed`` (asked by ``answer_form: "indexed"``): the answer carries ``topics``,
  the topic names in the order of the request's ``partitions`` keys, and each member
  maps to ``[[topic_index, [partition, ...]], ...]``, pairs in ascending topic index,
  topics the member got nothing of left out (a member with nothing has ``[]``).

Worked example: ``partitions`` ``{"b": 2, "a": 3}`` and the assignment
``{"m1": {"a": [0, 2], "b": [1]}, "m2": {"a": [1], "b": [0]}}`` is, indexed,
``topics: ["b", "a"]`` and ``{"m1": [[0, [1]], [1, [0, 2]]], "m2": [[0, [0]], [1, [1]]]}``.

The bytes are msgspec's JSON encoding (compact, the same values as ``json.dumps``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import Any

import msgspec

from lagassign.assign.answer import Answer
from lagassign.assign.topic_ids import keyed_by_topic_id
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
    payload: dict[str, Any], topics: Sequence[str], labels: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """``payload`` in the indexed form over ``topics`` (the request's ``partitions`` keys).

    ``labels`` renames topics in the answer's ``topics`` list (the topic-id form: name
    -> topic id); positions are the same either way.
    """
    index = {topic: i for i, topic in enumerate(topics)}
    named = list(topics) if labels is None else [labels.get(t, t) for t in topics]
    out: dict[str, Any] = {}
    for key, value in payload.items():
        if key == "assignment":
            out["topics"] = named
            out[key] = indexed(value, index)
        elif key == "revoked":
            out[key] = indexed(value, index)
        else:
            out[key] = value
    return out


def encode_answer(payload: Mapping[str, Any]) -> bytes:
    """The answer's JSON bytes."""
    return ENCODER.encode(payload)


def answer_body(answer: Answer, topic_ids: Mapping[str, str] | None = None) -> bytes:
    """The JSON of ``answer`` in the form its request asked for.

    ``topic_ids`` (topic name -> id) labels the topics by id, for the topic-id form.
    """
    payload = answer.to_json()
    if answer.answer_form == "indexed":
        payload = with_answer_form(payload, answer.request_topics, topic_ids)
    elif topic_ids is not None:
        payload = keyed_by_topic_id(payload, topic_ids)
    return encode_answer(payload)
