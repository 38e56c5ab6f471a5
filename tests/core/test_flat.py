"""The array form of an answer: the nested view, the statistics and the cooperative rule
read off the array are those of the nested answer, against plain loops."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.core.cooperative import withhold_moved
from lagassign.core.flat import FlatAssignment
from lagassign.core.model import Assignment, AssignmentResult, Rebalance, make_rebalance
from lagassign.core.stats import assignment_stats
from lagassign.core.strategies import run_strategy
from tests.core.test_ownership import contested


@st.composite
def flat_answers(draw: st.DrawFn) -> FlatAssignment:
    """Up to four members and four topics (some empty); any partition may go to nobody."""
    members = tuple(f"m{i}" for i in range(draw(st.integers(1, 4))))
    counts = draw(st.lists(st.integers(0, 5), min_size=1, max_size=4))
    starts = tuple(int(s) for s in np.cumsum([0, *counts]))
    owner = draw(
        st.lists(st.integers(-1, len(members) - 1), min_size=starts[-1], max_size=starts[-1])
    )
    return FlatAssignment(
        member_ids=members,
        topics=tuple(f"t{t}" for t in range(len(counts))),
        starts=starts,
        owner=np.array(owner, dtype=np.int32),
    )


def nested_by_loops(flat: FlatAssignment) -> Assignment:
    out: Assignment = {m: {} for m in flat.member_ids}
    for t, topic in enumerate(flat.topics):
        for x in range(flat.starts[t], flat.starts[t + 1]):
            m = int(flat.owner[x])
            if m >= 0:
                out[flat.member_ids[m]].setdefault(topic, []).append(x - flat.starts[t])
    return out


@settings(max_examples=200, deadline=None)
@given(flat_answers())
def test_the_nested_view_lists_every_member_and_only_what_it_gets(flat: FlatAssignment) -> None:
    nested = flat.nested()
    assert nested == nested_by_loops(flat)
    assert list(nested) == list(flat.member_ids)


@st.composite
def lagged(draw: st.DrawFn) -> Rebalance:
    """A contested rebalance with lags, in either protocol."""
    base = draw(contested())
    lags = {
        t: draw(st.lists(st.integers(0, 1_000), min_size=n, max_size=n))
        for t, n in base.partitions.items()
    }
    return make_rebalance(
        base.members,
        base.partitions,
        lags,
        protocol=draw(st.sampled_from(["eager", "cooperative"])),
    )


def without_empty_lists(assignment: Assignment) -> Assignment:
    return {m: {t: ps for t, ps in topics.items() if ps} for m, topics in assignment.items()}


@settings(max_examples=150, deadline=None)
@given(lagged())
def test_balanced_answers_as_an_array_and_reads_the_same_as_nested(rebalance: Rebalance) -> None:
    result = run_strategy("balanced", rebalance)
    assert result.flat is not None
    nested = AssignmentResult(result.assignment, result.revoked, result.settled_by)
    assert assignment_stats(rebalance, result) == assignment_stats(rebalance, nested)


@settings(max_examples=150, deadline=None)
@given(lagged())
def test_the_cooperative_rule_on_the_array_is_the_rule_on_the_nested_answer(
    rebalance: Rebalance,
) -> None:
    eager = run_strategy(
        "balanced", make_rebalance(rebalance.members, rebalance.partitions, rebalance.lags)
    )
    on_array = withhold_moved(rebalance, eager)
    on_nested = withhold_moved(rebalance, AssignmentResult(eager.assignment))
    assert on_array.flat is not None
    assert on_array.assignment == without_empty_lists(on_nested.assignment)
    assert on_array.revoked == on_nested.revoked
    assert assignment_stats(rebalance, on_array) == assignment_stats(rebalance, on_nested)
