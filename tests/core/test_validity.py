"""The validity checker finds every kind of breach and accepts a valid answer."""

from __future__ import annotations

import pytest

from lagassign.core.errors import InvalidAssignment
from lagassign.core.model import AssignmentResult, Member, make_rebalance
from lagassign.core.validity import assignment_problems, check_assignment

REBALANCE = make_rebalance(
    [
        Member("c-1", ("t0",), owned={"t0": (0,)}),
        Member("c-2", ("t0", "t1")),
    ],
    {"t0": 2, "t1": 1},
)


def test_a_valid_answer_passes() -> None:
    check_assignment(
        REBALANCE, AssignmentResult({"c-1": {"t0": [0]}, "c-2": {"t0": [1], "t1": [0]}})
    )


@pytest.mark.parametrize(
    ("assignment", "problem"),
    [
        ({"c-1": {"t0": [0, 1]}}, "member 'c-2' is missing"),
        ({"c-1": {"t0": [0]}, "c-2": {"t0": [1]}}, "t1 partitions 0 are not assigned"),
        ({"c-1": {"t0": [0, 1]}, "c-2": {"t0": [1], "t1": [0]}}, "given to both"),
        ({"c-1": {"t0": [0, 1], "t1": [0]}, "c-2": {}}, "without subscribing"),
        ({"c-1": {"t0": [0, 1]}, "c-2": {"t1": [0, 1]}}, "unknown partition t1-1"),
        ({"c-1": {"t0": [1, 0]}, "c-2": {"t1": [0]}}, "not sorted"),
        ({"c-1": {"t0": [0, 1]}, "c-2": {"t1": [0]}, "c-9": {}}, "unknown member"),
        ({"c-1": {"t0": [0, 1]}, "c-2": {"t1": [0], "t9": [0]}}, "unknown topic"),
    ],
)
def test_each_breach_is_reported(assignment: dict[str, dict[str, list[int]]], problem: str) -> None:
    problems = assignment_problems(REBALANCE, AssignmentResult(assignment))
    assert any(problem in p for p in problems), problems
    with pytest.raises(InvalidAssignment):
        check_assignment(REBALANCE, AssignmentResult(assignment))


def test_revoked_counts_as_placed_only_in_cooperative_mode_and_only_from_its_owner() -> None:
    cooperative = make_rebalance(REBALANCE.members, REBALANCE.partitions, protocol="cooperative")
    withheld = AssignmentResult(
        {"c-1": {}, "c-2": {"t0": [1], "t1": [0]}}, revoked={"c-1": {"t0": [0]}}
    )
    check_assignment(cooperative, withheld)
    assert any(
        "only allowed in the cooperative" in p for p in assignment_problems(REBALANCE, withheld)
    )
    wrong_owner = AssignmentResult(
        {"c-1": {"t0": [0]}, "c-2": {"t1": [0]}}, revoked={"c-2": {"t0": [1]}}
    )
    assert any("did not own it" in p for p in assignment_problems(cooperative, wrong_owner))
