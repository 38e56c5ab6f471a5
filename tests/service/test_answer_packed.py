"""The packed answer form's arrays: the documented example byte for byte, and the bulk
writer (from the array answer) equal to the plain one on any assignment."""

from __future__ import annotations

import msgspec
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.assign.answer_packed import packed, packed_flat
from lagassign.core.flat import FlatAssignment


def test_the_documented_example() -> None:
    answer = packed({"m1": {"a": [0, 2], "b": [1]}, "m2": {}}, {"b": 0, "a": 1})
    assert msgspec.json.decode(msgspec.json.encode(answer)) == {
        "m1": {"topic_indices": "AAAAAAEAAAABAAAA", "partitions": "AQAAAAAAAAACAAAA"},
        "m2": {"topic_indices": "", "partitions": ""},
    }


@st.composite
def flat_assignments(draw: st.DrawFn) -> tuple[FlatAssignment, dict[str, int]]:
    """Any owner array (some partitions withheld) and any order of the request's topics."""
    topics = draw(st.lists(st.sampled_from("abcdef"), min_size=1, unique=True))
    sizes = [draw(st.integers(0, 6)) for _ in topics]
    members = tuple(f"m{i}" for i in range(draw(st.integers(1, 5))))
    owner = draw(
        st.lists(st.integers(-1, len(members) - 1), min_size=sum(sizes), max_size=sum(sizes))
    )
    starts = tuple(np.cumsum([0, *sizes]).tolist())
    order = draw(st.permutations(topics))
    flat = FlatAssignment(members, tuple(topics), starts, np.asarray(owner, dtype=np.int32))
    return flat, {t: i for i, t in enumerate(order)}


@settings(max_examples=200, deadline=None)
@given(flat_assignments())
def test_the_bulk_writer_packs_as_the_plain_one(
    case: tuple[FlatAssignment, dict[str, int]],
) -> None:
    flat, index = case
    assert packed_flat(flat, index) == packed(flat.nested(), index)
