"""An answer in its array form is written, byte for byte, as its nested form would be:
every answer form, topic ids or names, eager and cooperative (revoked partitions)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.assign.answer import compute_answer
from lagassign.assign.answer_forms import answer_body
from lagassign.assign.lag_sources import request_lag_source
from lagassign.assign.request import parse_assign_request
from lagassign.core.model import AssignmentResult


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    """Small requests, topics listed in any order, members owning what they may."""
    names = draw(
        st.lists(st.sampled_from(["orders", "b", "Zeta", "é-topic", "a"]), min_size=1, unique=True)
    )
    partitions = {t: draw(st.integers(0, 4)) for t in names}
    members = []
    for i in range(draw(st.integers(1, 4))):
        topics = draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
        owned = {
            t: sorted(draw(st.sets(st.integers(0, n - 1), max_size=n)))
            for t, n in partitions.items()
            if n and draw(st.booleans())
        }
        members.append({"member_id": f'm-{i}"', "topics": topics, "owned": owned, "generation": 1})
    return {
        "group_id": "g",
        "members": members,
        "partitions": partitions,
        "lags": {
            t: draw(st.lists(st.integers(0, 100), min_size=n, max_size=n))
            for t, n in partitions.items()
        },
        "protocol": draw(st.sampled_from(["eager", "cooperative"])),
        "answer_form": draw(st.sampled_from(["topics", "packed"])),
    }


@settings(max_examples=150, deadline=None)
@given(requests(), st.booleans())
def test_the_array_answer_is_written_as_the_nested_one(body: dict[str, Any], by_id: bool) -> None:
    request = parse_assign_request(msgspec.json.encode(body))
    answer = compute_answer(request, request_lag_source(request), "balanced")
    assert answer.result.flat is not None
    result = answer.result
    nested = replace(
        answer, result=AssignmentResult(result.assignment, result.revoked, result.settled_by)
    )
    topic_ids = {t: f"id-{t}" for t in request.partitions} if by_id else None
    assert answer_body(answer, topic_ids) == answer_body(nested, topic_ids)
