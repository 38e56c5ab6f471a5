"""The two forms of an answer's ``assignment`` and ``revoked``, and the answer's bytes.

- ``topics`` (the default, for people: curl, the CLI): ``{member_id: {topic: [partition, ...]}}``;
- ``packed`` (asked by ``answer_form: "packed"``, for machines: the shims and the broker
  plugin): the answer carries ``topics``, the topic names in the order of the request's
  ``partitions`` keys, and each member's partitions as two base64 arrays of positions in
  it (:mod:`lagassign.assign.answer_packed`).

In the topic-id form (the broker plugin's) topics are labelled by their ids: the keys of
the ``topics`` form, the names of the packed form's ``topics`` list.

The bytes are msgspec's JSON encoding (compact, the same values as ``json.dumps``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
import numpy as np

from lagassign._native import assignment_json
from lagassign.assign.answer import Answer
from lagassign.assign.answer_packed import packed, packed_flat
from lagassign.assign.topic_ids import keyed_by_topic_id
from lagassign.core.flat import FlatAssignment

ENCODER = msgspec.json.Encoder()


def encode_answer(payload: Mapping[str, Any]) -> bytes:
    """The answer's JSON bytes."""
    return ENCODER.encode(payload)


def answer_body(answer: Answer, topic_ids: Mapping[str, str] | None = None) -> bytes:
    """The JSON of ``answer`` in the form its request asked for.

    ``topic_ids`` (topic name -> id) labels the topics by id, for the topic-id form.
    An answer in its array form is written straight from the array (the packed arrays
    in bulk with NumPy, the ``topics`` form by the compiled writer), never as a million
    Python lists.
    """
    flat = answer.result.flat
    if answer.answer_form == "packed":
        topics = answer.request_topics
        index = {topic: i for i, topic in enumerate(topics)}
        given = (
            packed(answer.result.assignment, index) if flat is None else packed_flat(flat, index)
        )
        payload = answer.payload(given)
        payload["revoked"] = packed(answer.result.revoked, index)
        labels = list(topics) if topic_ids is None else [topic_ids.get(t, t) for t in topics]
        return encode_answer(topics_first(payload, labels))
    if flat is None:
        payload = answer.to_json()
        return encode_answer(
            payload if topic_ids is None else keyed_by_topic_id(payload, topic_ids)
        )
    payload = answer.payload({})
    if topic_ids is not None:
        payload = keyed_by_topic_id(payload, topic_ids)
    keys = {t: t for t in flat.topics} if topic_ids is None else topic_ids
    payload["assignment"] = msgspec.Raw(flat_assignment_json(flat, keys))
    return encode_answer(payload)


def topics_first(payload: dict[str, Any], topics: list[str]) -> dict[str, Any]:
    """``payload`` with the packed form's ``topics`` list just before its ``assignment``."""
    out: dict[str, Any] = {}
    for key, value in payload.items():
        if key == "assignment":
            out["topics"] = topics
        out[key] = value
    return out


def flat_assignment_json(flat: FlatAssignment, keys: Mapping[str, str]) -> bytes:
    """The ``assignment`` JSON of ``flat`` in the ``topics`` form, each topic written as its
    key (else its name)."""
    return assignment_json(
        flat.owner,
        np.asarray(flat.starts, dtype=np.int64),
        [ENCODER.encode(keys.get(topic, topic)) for topic in flat.topics],
        [ENCODER.encode(member_id) for member_id in flat.member_ids],
        "topics",
    )
