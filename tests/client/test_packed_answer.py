"""The packed answer read by the NumPy step and by the standard library's come to the same
result: the same assignment, or the same kind of refusal."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign_client.errors import FallbackReason
from lagassign_client.wire import answer_arrays
from lagassign_client.wire.answer import read_answer
from lagassign_client.wire.group import GroupView, Subscriber
from lagassign_client.wire.userdata import SubscriptionUserData
from tests.client.answers import packed_arrays

NOTHING = SubscriptionUserData()


@st.composite
def cases(draw: st.DrawFn) -> tuple[GroupView, bytes]:
    """A group and a packed answer for it: valid, or broken in one way."""
    counts = {f"t{i}": draw(st.integers(0, 5)) for i in range(draw(st.integers(1, 4)))}
    names = draw(st.permutations(sorted(counts)))
    members = [
        Subscriber(f"c-{i}", tuple(draw(st.sets(st.sampled_from(names), min_size=1))), NOTHING)
        for i in range(draw(st.integers(1, 4)))
    ]
    given: dict[str, list[tuple[int, int]]] = {m.member_id: [] for m in members}
    for i, topic in enumerate(names):
        takers = [m.member_id for m in members if topic in m.topics]
        for p in range(counts[topic]):
            if takers:
                given[draw(st.sampled_from(takers))].append((i, p))
    change = draw(
        st.sampled_from(["none", "drop", "twice", "unsubscribed", "beyond", "unknown", "extra"])
    )
    member = draw(st.sampled_from(sorted(given)))
    if change == "drop" and given[member]:
        given[member].pop()
    elif change == "twice" and len(given) > 1:
        other = next(m for m in sorted(given) if m != member)
        given[member].extend(given[other][:1])
    elif change == "unsubscribed":
        given[member].append((draw(st.integers(0, len(names) - 1)), 0))
    elif change == "beyond":
        i = draw(st.integers(0, len(names) - 1))
        given[member].append((i, counts[names[i]]))
    elif change == "unknown":
        given["c-unknown"] = []
    elif change == "extra":
        names = [*names, "not-in-metadata"]
        given[member].append((len(names) - 1, 0))
    body = {
        "topics": list(names),
        "assignment": {m: packed_arrays(sorted(set(pairs))) for m, pairs in given.items()},
        "revoked": {m: packed_arrays([]) for m in given},
        "strategy": "balanced",
    }
    return GroupView("g", tuple(members), counts), json.dumps(body).encode()


def outcome(raw: bytes, view: GroupView) -> Any:
    try:
        return read_answer(raw, view).assignment
    except FallbackReason as exc:
        return type(exc).__name__


@settings(max_examples=300, deadline=None)
@given(cases())
def test_the_numpy_step_and_the_standard_library_agree(case: tuple[GroupView, bytes]) -> None:
    view, raw = case
    assert answer_arrays.AVAILABLE, "the tests run with the shim's fast extra installed"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(answer_arrays, "AVAILABLE", False)
        by_stdlib = outcome(raw, view)
    assert outcome(raw, view) == by_stdlib
