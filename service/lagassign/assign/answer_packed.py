"""The ``packed`` answer form: each member's partitions as two arrays of numbers in base64.

Asked by ``answer_form: "packed"`` (the form for machines). The answer carries
``topics`` (the request's ``partitions`` keys, in its order); ``assignment`` and
``revoked`` map each member to ``{"topic_indices": ..., "partitions": ...}``: two
equally long arrays of unsigned 32-bit little-endian integers, each in standard base64
with padding (RFC 4648, section 4). Element ``i`` of both is one partition given to the
member: partition ``partitions[i]`` of topic ``topics[topic_indices[i]]``, in ascending
(topic index, partition) order. A member with nothing has two empty strings.

A client reads a member's partitions with one base64 decode and one array view per
array, instead of decoding a JSON list per topic and a number per partition: at a
million partitions that is the difference between millions of small objects and a few
thousand.

Worked example: ``topics: ["b", "a"]`` and ``m1`` given ``a-0``, ``a-2`` and ``b-1`` is
``topic_indices`` [0, 1, 1] and ``partitions`` [1, 0, 2]:
``{"m1": {"topic_indices": "AAAAAAEAAAABAAAA", "partitions": "AQAAAAAAAAACAAAA"}}``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from lagassign.core.flat import FlatAssignment, stable_member_order
from lagassign.core.model import Assignment

#: The element type of both arrays: unsigned 32-bit, little-endian.
ELEMENT = np.dtype("<u4")

#: One member's arrays, as bytes (the JSON encoder writes bytes as base64).
PackedMember = dict[str, bytes]
PackedAssignment = dict[str, PackedMember]

_NOTHING: PackedMember = {"topic_indices": b"", "partitions": b""}


def _member(topic_indices: npt.ArrayLike, partitions: npt.ArrayLike) -> PackedMember:
    return {
        "topic_indices": np.asarray(topic_indices, dtype=ELEMENT).tobytes(),
        "partitions": np.asarray(partitions, dtype=ELEMENT).tobytes(),
    }


def packed(assignment: Assignment, index: Mapping[str, int]) -> PackedAssignment:
    """``assignment`` (member -> topic -> partitions) packed over the topic positions ``index``."""
    out: PackedAssignment = {}
    for member_id, topics in assignment.items():
        pairs = sorted((index[topic], p) for topic, ids in topics.items() for p in ids)
        out[member_id] = (
            _member([t for t, _ in pairs], [p for _, p in pairs]) if pairs else _NOTHING
        )
    return out


def packed_flat(flat: FlatAssignment, index: Mapping[str, int]) -> PackedAssignment:
    """The assignment ``flat`` holds, packed over the topic positions ``index``, in bulk.

    One stable sort of the given partitions by member puts each member's partitions in
    ascending flat order; when the flat topics are not in ``index`` order, each member's
    run is sorted by (topic position, partition) as well.
    """
    topic_of_flat = np.asarray([index[topic] for topic in flat.topics], dtype=np.int64)
    starts = np.asarray(flat.starts[:-1], dtype=np.int64)
    owner = flat.owner
    if owner.min(initial=0) < 0:  # some withheld (cooperative): only the given ones
        given = np.flatnonzero(owner >= 0)
        owner = owner[given]
        order = given[stable_member_order(owner)]
    else:
        order = stable_member_order(owner)
    numbers = flat.topic_numbers()[order]
    topic_indices = topic_of_flat[numbers]
    partitions = order - starts[numbers]
    if np.any(np.diff(topic_of_flat) < 0):
        by_member_topic_partition = np.lexsort((partitions, topic_indices, flat.owner[order]))
        topic_indices = topic_indices[by_member_topic_partition]
        partitions = partitions[by_member_topic_partition]
    topic_bytes = topic_indices.astype(ELEMENT).tobytes()
    partition_bytes = partitions.astype(ELEMENT).tobytes()
    ends = np.cumsum(np.bincount(owner, minlength=len(flat.member_ids))) * ELEMENT.itemsize
    out: PackedAssignment = {}
    begin = 0
    for member_id, end in zip(flat.member_ids, ends.tolist(), strict=True):
        out[member_id] = {
            "topic_indices": topic_bytes[begin:end],
            "partitions": partition_bytes[begin:end],
        }
        begin = end
    return out
